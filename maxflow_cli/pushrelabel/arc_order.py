"""The residual graph with each vertex's arcs in another order: its input arcs first, then
the reverse arcs of the input arcs into it, each group in input order.

OR-tools' SimpleMaxFlow and igraph's maxflow keep each vertex's arcs in input order; hi_pr's
parser leaves them in the order of its in-place sort (see residual._build), which `hipr`
keeps. Which arc a push or a relabel meets first decides much of push-relabel's work, and
on the DIMACS generators' families the order here does less of it than either: a vertex
tries the arcs it was given, most of which lead toward the sink, before the arcs back to
where its flow came from. The copy has the arrays of residual.py (one representation);
both graphs number the input arcs alike, which is how residuals map back.
"""

import dataclasses

import numba
import numpy as np

from maxflow_cli.residual import ResidualGraph


@numba.njit(cache=True)
def _forward_first(first, old_head, old_rev, old_input):
    """head, rev and arc_of_input of the forward-first order, by one pass over the input
    arcs, each read from its forward arc and the paired one in the graph (a counting sort by
    tail, stable in input order; `first` does not change)."""
    n = first.shape[0] - 1
    m = old_input.shape[0]
    next_forward = first[:n].copy()
    next_reverse = first[:n].copy()
    for i in range(m):
        next_reverse[old_head[old_rev[old_input[i]]]] += 1  # input arcs, then reverse arcs
    head = np.empty(2 * m, np.int32)
    rev = np.empty(2 * m, np.int32)
    arc_of_input = np.empty(m, np.int32)
    for i in range(m):
        tail, to = old_head[old_rev[old_input[i]]], old_head[old_input[i]]
        forward = next_forward[tail]
        next_forward[tail] += 1
        backward = next_reverse[to]
        next_reverse[to] += 1
        head[forward], rev[forward] = to, backward
        head[backward], rev[backward] = tail, forward
        arc_of_input[i] = forward
    return head, rev, arc_of_input


def forward_first(graph: ResidualGraph) -> ResidualGraph:
    """`graph` with each vertex's input arcs before its reverse arcs, each in input order
    (vertex and arc numbers read as unsigned views, as hipr_stage_one reads them)."""
    head, rev, arc_of_input = _forward_first(
        graph.first.view(np.uint32), graph.head.view(np.uint32), graph.rev.view(np.uint32),
        graph.arc_of_input.view(np.uint32))
    return dataclasses.replace(graph, head=head, rev=rev, arc_of_input=arc_of_input,
                               input_ordered=True)


@numba.njit(cache=True)
def _residuals_back(to_arcs, to_rev, from_arcs, from_rev, from_res):
    res = np.empty_like(from_res)
    for i in range(to_arcs.shape[0]):
        res[to_arcs[i]] = from_res[from_arcs[i]]
        res[to_rev[to_arcs[i]]] = from_res[from_rev[from_arcs[i]]]
    return res


def residuals_in(graph: ResidualGraph, ordered: ResidualGraph, res: np.ndarray) -> np.ndarray:
    """Residuals `res` of `ordered` (a reordered copy of `graph`) in `graph`'s arc numbering,
    matched through the input arcs, which both number alike (arc numbers unsigned, as in
    forward_first)."""
    return _residuals_back(graph.arc_of_input.view(np.uint32), graph.rev.view(np.uint32),
                           ordered.arc_of_input.view(np.uint32), ordered.rev.view(np.uint32),
                           res)
