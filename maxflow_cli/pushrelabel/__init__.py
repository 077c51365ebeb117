"""The push-relabel layer the solvers build on: preflow state and labelling (relabel), hi_pr's
highest-label core (highest_label) and the parallel relabel pieces (parallel_relabel)."""
