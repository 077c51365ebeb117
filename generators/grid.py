"""Vision grids: the graph-cut networks of binary image segmentation, on a synthetic image.

The shape of Boykov & Kolmogorov's vision instances (PAMI 2004) and of Jensen et al.'s
benchmark (TPAMI 2023): a W x H image or a W x H x D volume, each pixel (voxel) joined to its
4 or 8 (6 or 26) neighbours by one arc each way (n-links) and to a terminal by one t-link.
Capacities follow Boykov & Jolly (ICCV 2001), on a synthetic image drawn as follows.

0. Random numbers: output k of the splitmix64 stream of the seed (Steele, Lea & Flood 2014;
   Vigna's splitmix64.c) is ``mix(seed + (k + 1) 0x9E3779B97F4A7C15)``, arithmetic modulo 2^64
   (a negative seed too), ``mix(z)``: ``z ^= z >> 30; z *= 0xBF58476D1CE4E5B9; z ^= z >> 27;
   z *= 0x94D049BB133111EB; z ^= z >> 31``.
1. Coarse field: a lattice of spacing ``S = ceil(max(shape) / 8)`` (CELLS = 8 along the longest
   axis), ``G_k = (L_k - 1) // S + 2`` points along axis k of length L_k; point j (raster
   order, x fastest) holds ``output_j >> 56``, in 0..255.
2. Smooth image: pixel x lies in cell ``x_k // S`` at offset ``f_k = x_k % S``; its value is
   the lattice interpolated along x, then y, then z, each step in integers rounded half up:
   ``lerp(a, b, f) = (2 ((S - f) a + f b) + S) // (2 S)``.
3. The object is the pixels of smooth value >= 128. Intensity ``I = clamp(smooth + 16 + e, 0,
   255)`` on the object, ``clamp(smooth - 16 + e, 0, 255)`` off it (EDGE = 16: a step of 32
   at its boundary); the noise ``e = sum((65 u) >> 16) - 128`` over the four 16-bit quarters u
   of output ``G_x G_y G_z + p`` (p: the pixel's raster index), in [-128, 128], deviation 37.5.
4. t-links: the negative log-likelihood difference of two Gaussians, object mean 170,
   background mean 85, common deviation 48: ``d = (170 - 85)(2 I - 255) / (2 48^2)`` nats,
   16 capacity units a nat: capacity ``max(1, (2 16 85 |2 I - 255| + 4608) // 9216)``, 1..75.
   ``s -> p`` when d > 0 (I >= 128), else ``p -> t``: one t-link per pixel, never both.
5. n-links: ``max(1, round(lambda c exp(-(I_p - I_q)^2 / (2 48^2)) / |p - q|))`` each way
   (rounded half up),
   lambda the ``smoothness`` (default 32), |p - q| = 1, sqrt 2 or sqrt 3, and c = (number of
   face neighbours) / sum(1 / |p - q|) over the neighbourhood (1 for 4 and 6; 0.586 for 8;
   0.314 for 26), so that every connectivity smooths alike. exp is our own
   (:func:`_exp_minus`, IEEE-exact operations only): no platform's libm changes a rounding.

The noise is strong enough that thresholding the intensities misses the object in many pixels
where the minimum cut's source side, smoothed by the n-links, does not (tests/test_grid.py).
Vertices, 1-based as in the file: source 1, pixel p at 2 + p (p = x + W (y + H z)), sink
n = W H D + 2. Arcs grouped per pixel in raster order: its t-link, then its n-links in the
order of the neighbours' ids. n and m = W H D + the neighbour pairs counted both ways are
exact and data-independent; the same seed gives the same file on every platform.
"""

import math
from typing import BinaryIO

import numba
import numpy as np

from maxflow_cli.dimacs.writer import write_network
from maxflow_cli.errors import ParameterError
from maxflow_cli.generators.family import Family, Parameter, check_limits, check_size, text_size
from maxflow_cli.limits import INT32_MAX
from maxflow_cli.network import Network

CELLS = 8  # coarse cells along the longest axis
EDGE = 16  # half the intensity step at the object's boundary
NOISE_SPREAD = 65  # each of the four noise draws is in 0..NOISE_SPREAD - 1
MU_OBJECT, MU_BACKGROUND, SIGMA_CLASS = 170, 85, 48  # the two classes' Gaussians
UNITS_PER_NAT = 16  # t-link capacity of one nat of likelihood ratio
SIGMA_CONTRAST = 48  # Boykov-Jolly's sigma of the n-link contrast term
CONNECTIVITIES = {2: (4, 8), 3: (6, 26)}

_GAMMA = np.uint64(0x9E3779B97F4A7C15)

PRESET_SHAPES = {  # (connectivity, shape) of the presets grid-c<connectivity>-<shape>
    "small": ((4, (64, 64)), (8, (64, 64)), (6, (16, 16, 16)), (26, (16, 16, 16))),
    "medium": ((4, (512, 512)), (4, (1024, 1024)), (4, (2048, 2048)), (8, (512, 512)),
               (8, (1024, 1024)), (8, (1536, 1536)), (6, (64, 64, 64)), (6, (96, 96, 96)),
               (6, (128, 128, 128)), (26, (48, 48, 48)), (26, (64, 64, 64)),
               (26, (96, 96, 96))),
    "large": ((4, (4096, 4096)), (8, (4096, 4096)), (6, (256, 256, 256)),
              (26, (128, 128, 128)), (26, (256, 256, 256))),
}
"""Small: 20-100 k arcs, for a CPU-only run; medium: 1-25 M arcs; large: up to 4096^2 and
256^3 (the largest, 26-connected 256^3, has 449 M arcs)."""

PARAMETERS = (
    Parameter("shape", "pixels along each axis: W x H (image) or W x H x D (volume)",
              1, INT32_MAX, dimensions=(2, 3)),
    Parameter("connectivity", "neighbours of a pixel: 4 or 8 for W x H, 6 or 26 for W x H x D",
              4, 26),
    Parameter("smoothness", "lambda: n-links max(1, round(lambda c exp(-dI^2 / 4608) / |p - q|)),"
              " intensities 0..255, c evens out connectivities; t-links 1..75", 1, 2**20,
              default=32),
    Parameter("seed", "seed of the splitmix64 stream that draws the image: an 8-cell coarse "
              "field, a step of 32 at object edges, noise in [-128, 128]", -(2**63), 2**63 - 1),
)


def _offsets(connectivity: int) -> np.ndarray:
    """The neighbour offsets (dx, dy, dz), in order of the neighbour's id (z, y, x)."""
    steps = [(dx, dy, dz) for dz in (-1, 0, 1) for dy in (-1, 0, 1) for dx in (-1, 0, 1)
             if (dx, dy, dz) != (0, 0, 0)]
    keep = {4: lambda o: o[2] == 0 and sum(map(abs, o)) == 1, 8: lambda o: o[2] == 0,
            6: lambda o: sum(map(abs, o)) == 1, 26: lambda o: True}[connectivity]
    return np.array([o for o in steps if keep(o)], dtype=np.int64).reshape(-1, 3)


def _box(shape: tuple[int, ...]) -> tuple[int, int, int]:
    """(W, H, D), D = 1 for an image."""
    return (*shape, 1) if len(shape) == 2 else tuple(shape)


def size(shape: tuple[int, ...], connectivity: int, smoothness: int,
         **_) -> tuple[int, int, int]:
    """Vertices W H D + 2; arcs W H D t-links plus, per offset o, prod(L_k - |o_k|) n-links."""
    box = _box(shape)
    pixels = math.prod(box)
    links = sum(math.prod(max(length - abs(step), 0) for length, step in zip(box, offset))
                for offset in _offsets(connectivity).tolist())
    n, m = pixels + 2, pixels + links
    return n, m, text_size(n, m, max(smoothness, _tlink_table().max()))


def check(shape: tuple[int, ...], connectivity: int, smoothness: int, seed: int) -> None:
    """Refuse limits, a connectivity the shape's dimension has not, and too large a grid."""
    values = dict(shape=shape, connectivity=connectivity, smoothness=smoothness, seed=seed)
    check_limits("grid", PARAMETERS, values)
    allowed = CONNECTIVITIES[len(shape)]
    if connectivity not in allowed:
        raise ParameterError(
            f"grid: a {len(shape)}-D shape takes --connectivity {' or '.join(map(str, allowed))}, "
            f"not {connectivity}")
    n, m, _ = size(shape, connectivity, smoothness)
    check_size("grid", n, m)


@numba.njit(cache=True)
def _draw(seed, k):
    """Output k of the splitmix64 stream seeded with ``seed`` (uint64 arithmetic wraps)."""
    z = seed + np.uint64(k + 1) * _GAMMA
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@numba.njit(cache=True, inline="always")
def _lerp(a, b, f, spacing):
    """``a`` to ``b`` at ``f / spacing``, rounded half up, in integers."""
    return (2 * ((spacing - f) * a + f * b) + spacing) // (2 * spacing)


@numba.njit(cache=True, inline="always")
def _along_x(coarse, grid, spacing, at, fx, fy):
    """Rows ``at`` and ``at + gx`` of the lattice interpolated along x, then along y."""
    low = _lerp(np.int64(coarse[at]), np.int64(coarse[at + 1]), fx, spacing)
    at += grid[0]
    high = _lerp(np.int64(coarse[at]), np.int64(coarse[at + 1]), fx, spacing)
    return _lerp(low, high, fy, spacing)


@numba.njit(cache=True)
def _smooth_at(coarse, grid, spacing, x, y, z):
    """The coarse field interpolated at pixel (x, y, z): along x, then y, then z (step 2)."""
    gx, gy, gz = grid
    fx, fy, fz = x % spacing, y % spacing, z % spacing
    at = ((z // spacing) * gy + y // spacing) * gx + x // spacing
    near = _along_x(coarse, grid, spacing, at, fx, fy)
    if gz == 1:  # an image
        return near
    return _lerp(near, _along_x(coarse, grid, spacing, at + gx * gy, fx, fy), fz, spacing)


@numba.njit(cache=True)
def _scene(width, height, depth, grid, spacing, seed, edge, spread):
    """(smooth image, intensity) of every pixel in raster order, both uint8 (steps 1-3);
    noise: four draws in 0..spread - 1, less their mean."""
    gx, gy, gz = grid
    coarse = np.empty(gx * gy * gz, np.uint8)
    for j in range(coarse.shape[0]):
        coarse[j] = _draw(seed, j) >> np.uint64(56)
    pixels = width * height * depth
    smooth = np.empty(pixels, np.uint8)
    intensity = np.empty(pixels, np.uint8)
    p = 0
    for z in range(depth):
        for y in range(height):
            for x in range(width):
                value = _smooth_at(coarse, grid, spacing, x, y, z)
                bits = _draw(seed, coarse.shape[0] + p)
                noise = -2 * (spread - 1)
                for quarter in range(4):
                    part = (bits >> np.uint64(16 * quarter)) & np.uint64(0xFFFF)
                    noise += np.int64((np.uint64(spread) * part) >> np.uint64(16))
                step = edge if value >= 128 else -edge
                smooth[p] = value
                intensity[p] = min(max(value + step + noise, 0), 255)
                p += 1
    return smooth, intensity


def _lattice(shape: tuple[int, ...]) -> tuple[tuple[int, int, int], int]:
    """The coarse lattice's points per axis (1 along z for an image) and its spacing S."""
    spacing = max(1, -(-max(shape) // CELLS))
    grid = tuple((length - 1) // spacing + 2 for length in shape)
    return (*grid, 1) if len(shape) == 2 else grid, spacing


def _images(shape: tuple[int, ...], seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(smooth image, intensity) in raster order (steps 1-3)."""
    grid, spacing = _lattice(shape)
    return _scene(*_box(shape), grid, spacing, np.uint64(seed % 2**64), EDGE, NOISE_SPREAD)


def scene(shape: tuple[int, ...], seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The smooth image and the intensities (steps 1-3) as uint8 arrays indexed [x, y(, z)];
    the object is ``smooth >= 128``."""
    order = tuple(reversed(shape))
    return tuple(image.reshape(order).T for image in _images(shape, seed))


def _exp_minus(x: float) -> float:
    """exp(-x) for x >= 0 from IEEE-exact operations only (halve until small, Taylor series,
    square back), so the capacity tables are the same on every platform, whatever its libm."""
    halvings = 0
    while x > 2.0**-8:
        x, halvings = x / 2, halvings + 1
    term, total = 1.0, 1.0
    for k in range(1, 8):
        term = term * -x / k
        total += term
    for _ in range(halvings):
        total *= total
    return total


def _tlink_table() -> np.ndarray:
    """t-link capacity by intensity 0..255 (step 4), in exact integers."""
    levels = np.arange(256, dtype=np.int64)
    spread = np.abs(2 * levels - MU_OBJECT - MU_BACKGROUND)
    numerator = UNITS_PER_NAT * (MU_OBJECT - MU_BACKGROUND) * spread
    denominator = 2 * SIGMA_CLASS**2
    return np.maximum(1, (2 * numerator + denominator) // (2 * denominator))


def _nlink_table(smoothness: int, connectivity: int) -> np.ndarray:
    """n-link capacity by [|p - q|^2 - 1, |I_p - I_q|] (step 5), rounded half up; c scales the
    weights 1 / |p - q| to sum, over the neighbourhood, to the number of face neighbours."""
    squares = (_offsets(connectivity) ** 2).sum(axis=1).tolist()
    scale = smoothness * squares.count(1) / sum(1 / math.sqrt(square) for square in squares)
    table = np.empty((3, 256), np.int64)
    for squared in range(1, 4):
        for delta in range(256):
            weight = scale * _exp_minus(delta * delta / (2 * SIGMA_CONTRAST**2))
            table[squared - 1, delta] = max(1, math.floor(weight / math.sqrt(squared) + 0.5))
    return table


@numba.njit(cache=True)
def _arcs(width, height, depth, intensity, offsets, tlinks, nlinks, m):
    """Arcs per pixel in raster order: its t-link, then its n-links (0-based ids: source 0,
    pixel p at p + 1, sink W H D + 1)."""
    tails = np.empty(m, np.int32)
    heads = np.empty(m, np.int32)
    caps = np.empty(m, np.int64)
    sink = width * height * depth + 1
    k = 0
    p = 0
    for z in range(depth):
        for y in range(height):
            for x in range(width):
                level = np.int64(intensity[p])
                if level >= 128:
                    tails[k], heads[k] = 0, p + 1
                else:
                    tails[k], heads[k] = p + 1, sink
                caps[k] = tlinks[level]
                k += 1
                for o in range(offsets.shape[0]):
                    dx, dy, dz = offsets[o, 0], offsets[o, 1], offsets[o, 2]
                    qx, qy, qz = x + dx, y + dy, z + dz
                    if 0 <= qx < width and 0 <= qy < height and 0 <= qz < depth:
                        q = (qz * height + qy) * width + qx
                        tails[k], heads[k] = p + 1, q + 1
                        caps[k] = nlinks[abs(dx) + abs(dy) + abs(dz) - 1,
                                         abs(level - np.int64(intensity[q]))]
                        k += 1
                p += 1
    return tails, heads, caps


def make(shape: tuple[int, ...], connectivity: int, smoothness: int, seed: int) -> Network:
    """The grid network in memory, arcs in file order (source 0, sink W H D + 1)."""
    check(shape, connectivity, smoothness, seed)
    n, m, _ = size(shape, connectivity, smoothness)
    _, intensity = _images(shape, seed)
    tails, heads, caps = _arcs(*_box(shape), intensity, _offsets(connectivity), _tlink_table(),
                               _nlink_table(smoothness, connectivity), m)
    return Network(n, 0, n - 1, tails, heads, caps)


def write(stream: BinaryIO, shape: tuple[int, ...], connectivity: int, smoothness: int,
          seed: int) -> None:
    """Write the grid as DIMACS, with comments naming the parameters and the vertex order."""
    shown = "x".join(map(str, shape))
    axes = "x + W y" if len(shape) == 2 else "x + W (y + H z)"
    comments = (
        f"vision grid {shown}, connectivity {connectivity}, smoothness {smoothness}, "
        f"seed {seed} (maxflow gen grid)",
        f"source 1, sink n, pixel (x, y{', z' if len(shape) == 3 else ''}) is vertex 2 + {axes}",
    )
    write_network(stream, make(shape, connectivity, smoothness, seed), comments)


FAMILY = Family("grid",
                "Vision grid (Boykov-Jolly segmentation of a synthetic image): one t-link "
                "per pixel from a two-class likelihood, contrast n-links both ways to 4/8 "
                "(2-D) or 6/26 (3-D) neighbours; the model: maxflow_cli.generators.grid",
                PARAMETERS, make, write, size, check)
