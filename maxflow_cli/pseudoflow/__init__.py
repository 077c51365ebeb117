"""Hochbaum's pseudoflow algorithm (hpf): a normalized forest of strong and weak trees in
place of a preflow's labels and active vertices."""
