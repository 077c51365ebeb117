"""Boykov-Kolmogorov search trees (search_trees.py), for the `bk` solver."""
