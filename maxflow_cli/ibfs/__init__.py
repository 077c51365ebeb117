"""Incremental breadth-first search max-flow: EIBFS (Goldberg, Hed, Kaplan, Kohli, Tarjan &
Werneck, ESA 2015) and IBFS (Goldberg, Hed, Kaplan, Tarjan & Werneck, ESA 2011), in eibfs."""
