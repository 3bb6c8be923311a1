"""Quickstart: make a placed two-level pyramid, fill it, read a world box back, and compare with an N5 copy.

The volume is 32^3 voxels of 4 nm whose first voxel has its lower corner at the origin, so voxel 0
is centred at 2 nm. ``wa.create`` writes an OME-NGFF 0.5 zarr v3 group and its level s0;
``add_level`` adds s1 at 8 nm, placed by the level rule (voxel 0 centred at 4 nm); the example
fills both, the second by a 2x block mean. The same volume is also written by hand as an N5
pyramid that stores only pixelResolution and downsamplingFactors: both readings must agree, in
placement and in the bytes of the same world box.

Run it with ``python examples/quickstart.py [OUTPUT]``: the zarr pyramid goes to OUTPUT (``demo.zarr``, say) when
nothing is there, and is only read when something is; without OUTPUT everything lives in a temporary directory.
The README's first command goes on from OUTPUT: ``worldarray copy`` cuts a world box out of it at 8 nm, and
``worldarray info`` and ``check`` show the crop placed where the box was.
"""

import argparse
import json
import pathlib
import tempfile

import numpy as np
import tensorstore as ts

import worldarray as wa

VOLUME = np.arange(32**3, dtype=np.uint16).reshape(32, 32, 32)
# s1 by a plain numpy 2x block mean, rounded half to even as worldarray's linear resampling rounds
COARSE = np.rint(VOLUME.reshape(16, 2, 16, 2, 16, 2).mean(axis=(1, 3, 5))).astype(np.uint16)


def make_pyramid(root: pathlib.Path) -> None:
    """s0 by wa.create, s1 by add_level; the voxels go in by whole chunks, the coarse level by a block mean."""
    s0 = wa.create(root / "s0", VOLUME.shape, "uint16", voxel_size=4.0, translation=2.0, chunks=(16, 16, 16))
    s0.write_index((0, 0, 0), VOLUME.shape, VOLUME)
    s1 = wa.open_pyramid(root, mode="r+").add_level("s1", factors=2)
    s1.write_index((0, 0, 0), s1.shape, s0.read_onto(s1, method="linear"))  # s1's grid, in whatever units


def make_n5(root: pathlib.Path) -> None:
    """An N5 pyramid with no offset: its lists are x-first and every level's corner is at the origin."""
    root.mkdir(parents=True)
    (root / "attributes.json").write_text(json.dumps({"n5": "2.0.0", "pixelResolution": {
        "dimensions": [4.0, 4.0, 4.0], "unit": "nm"}}))
    for i, data in enumerate((VOLUME, COARSE)):
        store = ts.open({"driver": "n5", "kvstore": {"driver": "file", "path": str(root / f"s{i}")},
                         "metadata": {"dimensions": list(data.shape[::-1]), "blockSize": [16, 16, 16],
                                      "dataType": "uint16", "compression": {"type": "raw"}}},
                        create=True).result()
        store.T.write(data).result()  # N5 is x-first; .T puts the C-order volume in place
        attributes = json.loads((root / f"s{i}" / "attributes.json").read_text())
        attributes["downsamplingFactors"] = [2**i] * 3
        (root / f"s{i}" / "attributes.json").write_text(json.dumps(attributes))


def show(path: pathlib.Path) -> None:
    pyramid = wa.open_pyramid(path)
    print(f"{path.name}: {pyramid!r}")
    for level in pyramid.levels:
        print(f"  {level.level_name}: {level.meta.format:5} shape={level.shape} voxel_size={level.voxel_size} nm")
        print(f"      translation={level.translation} corner={level.corner} placed_by={level.meta.placed_by!r}")
    s1 = pyramid.by_name("s1")
    box = ((0.0, 0.0, 0.0), (16.0, 16.0, 32.0))  # nm: two voxels of s1 in z and y, four in x
    print(f"  s1 read of the world box {box}:\n{s1.read(box)}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output", nargs="?", help="where to write the zarr pyramid (default: a temporary directory); "
                                                  "when something is there already, it is read and not written")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        zarr_path = pathlib.Path(args.output) if args.output else pathlib.Path(tmp, "demo.zarr")
        n5_path = pathlib.Path(tmp, "demo.n5")
        if zarr_path.exists():
            print(f"{zarr_path} is there already: reading it, writing nothing")
        else:
            make_pyramid(zarr_path)
        make_n5(n5_path)
        for path in (zarr_path, n5_path):
            show(path)
        box = ((0.0, 0.0, 0.0), (64.0, 64.0, 64.0))
        same = all((wa.open(zarr_path, voxel_size=v).read(box) == wa.open(n5_path, voxel_size=v).read(box)).all()
                   for v in (4.0, 8.0))
        print(f"the zarr and N5 pyramids give the same bytes for the world box {box} at 4 and 8 nm: {same}")


if __name__ == "__main__":
    main()
