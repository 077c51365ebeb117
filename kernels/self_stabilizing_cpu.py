"""Numba twin of self_stabilizing.cu: the same three kernels of a round on the CPU, one vertex
after another, with the same keys, arc choices and clamped demands. Within a kernel no
vertex reads what another writes (movers share no arc), so the order does not matter and a
round here leaves the arrays the kernels leave; one thread, as threads would cost more in
synchronisation than the few moves of a round give them. See solvers/self_stabilizing.py for the
algorithm (Alvino 2015, §3.2.2, Algorithms 7-8) and the choices made where it is silent.
"""

import numba

from maxflow_cli.kernels.declarations import source_constant

BATCH = source_constant("self_stabilizing", "BATCH")
LIMIT = 1 << 62  # the kernel's LIMIT: |demand| at or past it is more than any arc can carry
IDLE, REDUCE_INFLOW, PULL, REDUCE_OUTFLOW = (
    source_constant("self_stabilizing", name)
    for name in ("IDLE", "REDUCE_INFLOW", "PULL", "REDUCE_OUTFLOW"))
MASK = 0xFFFFFFFF


@numba.njit(cache=True, inline="always")
def vertex_key(u, round_number):
    """The kernel's 32-bit key of u in round `round_number` (each product stays below 2^63)."""
    x = (u + round_number * 0x27D4EB2F) & MASK
    x = (((x >> 16) ^ x) * 0x45D9F3B) & MASK
    x = (((x >> 16) ^ x) * 0x45D9F3B) & MASK
    return (x >> 16) ^ x


@numba.njit(cache=True, inline="always")
def goes_before(w, u, round_number):
    kw, ku = vertex_key(w, round_number), vertex_key(u, round_number)
    return kw > ku or (kw == ku and w > u)


@numba.njit(cache=True)
def clamped_demand(u, first, cap, res):
    """outflow(u) - inflow(u) clamped to [-LIMIT, LIMIT], carried in units of LIMIT so that
    no partial sum overflows (each arc's flow lies in [-LIMIT, LIMIT])."""
    low = 0
    units = 0
    for a in range(first[u], first[u + 1]):
        low += cap[a] - res[a]
        if low >= LIMIT:
            low -= LIMIT
            units += 1
        elif low <= -LIMIT:
            low += LIMIT
            units -= 1
    if units > 1:
        return LIMIT
    if units < -1:
        return -LIMIT
    return min(max(units * LIMIT + low, -LIMIT), LIMIT)


@numba.njit(cache=True)
def least_flow_arc(begin, end, direction, cap, res):
    """The arc whose flow out of u (direction 1) or into u (-1) is positive and least, the
    first of equals."""
    chosen = -1
    least = 0
    for a in range(begin, end):
        flow = direction * (cap[a] - res[a])
        if flow > 0 and (chosen < 0 or flow < least):
            chosen = a
            least = flow
    return chosen


@numba.njit(cache=True)
def labels_kernel(n, source, round_number, first, head, rev, res, label, next_label, busy):
    """Twin of labels_kernel (S1)."""
    changed = 0
    for u in range(n):
        h = n
        if u == source:
            h = 0
        else:
            for a in range(first[u], first[u + 1]):
                if res[rev[a]] > 0:
                    h = min(h, label[head[a]] + 1)
        next_label[u] = h
        if h != label[u]:
            changed += 1
    if changed:
        busy[round_number % BATCH] = 1


@numba.njit(cache=True)
def guards_kernel(n, source, sink, round_number, first, head, rev, cap, res, label, demand, guard,
                  busy):
    """Twin of guards_kernel: demands, and which of S2-S4 holds at each vertex."""
    enabled = 0
    for u in range(n):
        d = LIMIT if u == sink else clamped_demand(u, first, cap, res)
        g = IDLE
        if u != source and d < 0:
            g = REDUCE_INFLOW
        elif u != source and d > 0:
            h = label[u]
            if h == n:
                g = IDLE if u == sink else REDUCE_OUTFLOW
            else:
                for a in range(first[u], first[u + 1]):
                    if res[rev[a]] > 0 and label[head[a]] == h - 1:
                        g = PULL
                        break
        demand[u] = d
        guard[u] = g
        if g != IDLE:
            enabled += 1
    if enabled:
        busy[round_number % BATCH] = 1


@numba.njit(cache=True)
def move(u, sink, g, d, first, head, rev, cap, res, label):
    """The kernel's move of u: its action, one arc at a time while the guard holds at u; the
    arcs it changed."""
    begin, end = first[u], first[u + 1]
    steps = 0
    if g == PULL:
        for a in range(begin, end):
            if d <= 0:
                break
            x = rev[a]
            if res[x] > 0 and label[head[a]] == label[u] - 1:
                amount = min(d, res[x])
                res[x] -= amount
                res[a] += amount
                if u != sink:  # the sink's demand stays infinite
                    d -= amount
                steps += 1
    else:
        direction = -1 if g == REDUCE_INFLOW else 1
        while d != 0:
            a = least_flow_arc(begin, end, direction, cap, res)
            if a < 0:
                break
            amount = min(direction * d, direction * (cap[a] - res[a]))
            x = a if g == REDUCE_INFLOW else rev[a]
            res[x] -= amount
            res[rev[x]] += amount
            d -= direction * amount
            steps += 1
    return steps


@numba.njit(cache=True)
def moves_kernel(n, sink, round_number, first, head, rev, cap, res, label, demand, guard,
                 stats):
    """Twin of moves_kernel: each enabled vertex that goes before its enabled neighbours
    moves."""
    for u in range(n):
        g = guard[u]
        if g == IDLE:
            continue
        blocked = False
        for a in range(first[u], first[u + 1]):
            w = head[a]
            if w != u and guard[w] != IDLE and goes_before(w, u, round_number):
                blocked = True
                break
        if blocked:
            continue
        stats[g - 1] += move(u, sink, g, demand[u], first, head, rev, cap, res, label)
