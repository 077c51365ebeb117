"""An independent maximum-flow oracle for the tests: Edmonds-Karp on Python integers.

Shares no code with the project's solvers: plain dicts, breadth-first augmenting paths,
exact arbitrary-precision arithmetic. Slow; for small graphs only.
"""

from collections import defaultdict, deque


def max_flow_value(n, source, sink, arcs):
    """Maximum flow value from `source` to `sink` over (tail, head, capacity) arcs, 0-based."""
    residual = defaultdict(int)
    neighbours = defaultdict(set)
    for tail, head, capacity in arcs:
        if tail == head:
            continue
        residual[tail, head] += int(capacity)
        neighbours[tail].add(head)
        neighbours[head].add(tail)
    value = 0
    while True:
        parent = {source: None}
        queue = deque([source])
        while queue and sink not in parent:
            u = queue.popleft()
            for v in neighbours[u]:
                if v not in parent and residual[u, v] > 0:
                    parent[v] = u
                    queue.append(v)
        if sink not in parent:
            return value
        path = []
        v = sink
        while parent[v] is not None:
            path.append((parent[v], v))
            v = parent[v]
        delta = min(residual[arc] for arc in path)
        for u, v in path:
            residual[u, v] -= delta
            residual[v, u] += delta
        value += delta
