"""Yen's K shortest loopless paths on the CPU (Yen 1971, with Lawler's rule: a path's spur
vertices start at its deviation vertex), one Dijkstra per spur vertex: the reference the
kernels are measured against. The pairs run in parallel on CPU threads (prange), each
writing the kernels' output layout (kernels/ksp.cu: out_path, out_len, out_key, out_count).
"""

import heapq

import numba
import numpy as np
from numba import prange

from maxflow_cli.kernels.ksp_cpu import INF, arc_between


@numba.njit(cache=True)
def _dijkstra(first, head, length, start, t, blocked, banned, dist, pred):
    """The shortest path from `start` to t through no blocked vertex and no arc from `start`
    to a banned head: its length (INF if none), pred[] giving it backwards."""
    dist[:] = INF
    pred[:] = -1
    dist[start] = 0
    heap = [(np.int64(0), np.int64(start))]
    while heap:
        d, u = heapq.heappop(heap)
        if d > dist[u]:
            continue
        if u == t:
            break
        for a in range(first[u], first[u + 1]):
            x = head[a]
            if blocked[x] or (u == start and banned[x]):
                continue
            if d + length[a] < dist[x]:
                dist[x] = d + length[a]
                pred[x] = u
                heapq.heappush(heap, (dist[x], np.int64(x)))
    return dist[t]


@numba.njit(cache=True)
def _spur_path(root, pred, t):
    """root followed by the Dijkstra path from root[-1] to t, as read back from pred."""
    size = 0
    v = t
    while v != root[-1]:
        size += 1
        v = pred[v]
    path = np.empty(root.shape[0] + size, np.int32)
    path[:root.shape[0]] = root
    v = t
    for j in range(path.shape[0] - 1, root.shape[0] - 1, -1):
        path[j] = v
        v = pred[v]
    return path


@numba.njit(cache=True)
def yen_pair(n, k, s, t, first, head, length, out_path, out_len, out_key):
    """The k shortest loopless s-t paths by key, into out_*; returns how many exist."""
    dist = np.empty(n, np.int64)
    pred = np.empty(n, np.int64)
    blocked = np.zeros(n, np.bool_)
    banned = np.zeros(n, np.bool_)
    if _dijkstra(first, head, length, s, t, blocked, banned, dist, pred) == INF:
        return 0
    found = [_spur_path(np.array([s], np.int32), pred, t)]
    found_keys = [dist[t]]
    found_deviation = [0]
    candidates = [np.empty(0, np.int32)]
    candidate_deviation = [0]
    heap = [(np.int64(0), np.int64(0))]  # (key, index in candidates)
    heap.pop()
    while len(found) < k:
        last = found[-1]
        for i in range(found_deviation[-1], last.shape[0] - 1):
            blocked[:] = False
            banned[:] = False
            root_key = 0
            for j in range(i + 1):
                blocked[last[j]] = True
                if j < i:
                    root_key += length[arc_between(first, head, last[j], last[j + 1])]
            for other in found:
                if other.shape[0] > i + 1 and np.array_equal(other[:i + 1], last[:i + 1]):
                    banned[other[i + 1]] = True
            spur = _dijkstra(first, head, length, last[i], t, blocked, banned, dist, pred)
            if spur < INF:
                heapq.heappush(heap, (root_key + spur, np.int64(len(candidates))))
                candidates.append(_spur_path(last[:i + 1].copy(), pred, t))
                candidate_deviation.append(i)
        if not heap:
            break
        key, index = heapq.heappop(heap)
        found.append(candidates[index])
        found_keys.append(key)
        found_deviation.append(candidate_deviation[index])
    for r in range(len(found)):
        out_len[r] = found[r].shape[0]
        out_key[r] = found_keys[r]
        out_path[r, :found[r].shape[0]] = found[r]
    return len(found)


@numba.njit(cache=True, parallel=True)
def yen_pairs(n, k, first, head, length, sources, targets, out_path, out_len, out_key,
              out_count):
    """yen_pair for each (sources[i], targets[i]), in parallel."""
    for pair in prange(sources.shape[0]):
        out_count[pair] = yen_pair(n, k, sources[pair], targets[pair], first, head, length,
                                   out_path[pair], out_len[pair], out_key[pair])
