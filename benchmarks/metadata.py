"""How much worldarray adds to opening an array and to reading its metadata, against the floor without it.

Builds a local zarr v3 OME-NGFF 0.5 pyramid (two levels, 64^3 chunks, zstd) in a temporary directory, then
times two pairs, alternating the calls of a pair on every repetition so that drift on a busy machine hits both:

- ``wa.open_tensorstore(path/s0)`` against ``ts.open({"driver": "zarr3", ...})`` on the same array;
- ``wa.metadata(path, level="s0", open=False)`` against ``json.load`` of the group's and the array's zarr.json.

Prints the median of each in microseconds and the ratio of the medians. Makes no assertions.

Run: ``python benchmarks/metadata.py [--repeat N]``
"""

from __future__ import annotations

import argparse
import json
import pathlib
import statistics
import tempfile
import time

import numpy as np
import tensorstore as ts

import worldarray as wa

SHAPE = {"s0": (128, 128, 128), "s1": (64, 64, 64)}


def build(root: pathlib.Path) -> None:
    datasets = [
        {"path": name, "coordinateTransformations": [
            {"type": "scale", "scale": [4.0 * 2**i] * 3},
            {"type": "translation", "translation": [2.0 * 2**i] * 3},
        ]}
        for i, name in enumerate(SHAPE)
    ]
    axes = [{"name": a, "type": "space", "unit": "nanometer"} for a in "zyx"]
    group = {"zarr_format": 3, "node_type": "group",
             "attributes": {"ome": {"version": "0.5", "multiscales": [{"axes": axes, "datasets": datasets}]}}}
    root.mkdir()
    (root / "zarr.json").write_text(json.dumps(group))
    rng = np.random.default_rng(0)
    for name, shape in SHAPE.items():
        array = ts.open({
            "driver": "zarr3",
            "kvstore": {"driver": "file", "path": str(root / name)},
            "metadata": {
                "shape": shape, "data_type": "uint8", "dimension_names": list("zyx"),
                "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [64, 64, 64]}},
                "codecs": [{"name": "bytes"}, {"name": "zstd", "configuration": {"level": 3}}],
            },
        }, create=True).result()
        array.write(rng.integers(0, 255, shape, dtype=np.uint8)).result()


def interleaved(first, second, repeat: int) -> tuple[float, float]:
    """Median seconds of each callable, calling them alternately so both see the same machine."""
    times_first, times_second = [], []
    for _ in range(repeat):
        for call, times in ((first, times_first), (second, times_second)):
            start = time.perf_counter()
            call()
            times.append(time.perf_counter() - start)
    return statistics.median(times_first), statistics.median(times_second)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=200, help="repetitions of each pair (default 200)")
    repeat = parser.parse_args().repeat

    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp, "bench.zarr")
        build(root)
        level = root / "s0"
        raw_spec = {"driver": "zarr3", "kvstore": {"driver": "file", "path": str(level)}}

        def read_documents():
            with open(root / "zarr.json") as group, open(level / "zarr.json") as array:
                return json.load(group), json.load(array)

        pairs = [
            ("open_tensorstore(s0)", lambda: wa.open_tensorstore(level),
             "ts.open zarr3", lambda: ts.open(raw_spec).result()),
            ("metadata(level=s0, open=False)", lambda: wa.metadata(root, level="s0", open=False),
             "json.load x2", read_documents),
        ]
        for _, ours, _, floor in pairs:  # warm imports, the page cache and tensorstore's first-use setup
            ours(), floor()

        print(f"medians of {repeat} interleaved repetitions, microseconds")
        print(f"{'worldarray':34} {'us':>9}   {'floor':16} {'us':>9}   {'ratio':>6}")
        for name, ours, floor_name, floor in pairs:
            ours_s, floor_s = interleaved(ours, floor, repeat)
            print(f"{name:34} {ours_s * 1e6:9.1f}   {floor_name:16} {floor_s * 1e6:9.1f}   {ours_s / floor_s:6.1f}x")


if __name__ == "__main__":
    main()
