"""Quickstart: one small volume stored two ways, and where worldarray says its voxels sit.

The volume is 32^3 voxels of 4 nm whose first voxel has its lower corner at the origin. It is
written as an OME-NGFF 0.5 zarr v3 pyramid (s0 at 4 nm, s1 at 8 nm) and as an N5 pyramid that
stores only pixelResolution and downsamplingFactors. Both readings should agree: voxel 0 of s0
is centred at 2 nm, voxel 0 of s1 at 4 nm, and every corner is at the origin.

Run it with ``python examples/quickstart.py``.
"""

import json
import pathlib
import tempfile

import numpy as np
import tensorstore as ts

import worldarray as wa

VOLUME = np.arange(32**3, dtype=np.uint16).reshape(32, 32, 32)
LEVELS = {"s0": VOLUME, "s1": VOLUME[::2, ::2, ::2]}  # a stride is enough for a demonstration


def write_ome_zarr(root: pathlib.Path) -> None:
    """An OME-NGFF 0.5 group: scale is the voxel size, translation the centre of voxel 0."""
    datasets = [
        {"path": name, "coordinateTransformations": [
            {"type": "scale", "scale": [4.0 * 2**i] * 3},
            {"type": "translation", "translation": [2.0 * 2**i] * 3},
        ]}
        for i, name in enumerate(LEVELS)
    ]
    axes = [{"name": a, "type": "space", "unit": "nanometer"} for a in "zyx"]
    multiscale = {"name": "demo", "axes": axes, "datasets": datasets}
    group = {"zarr_format": 3, "node_type": "group",
             "attributes": {"ome": {"version": "0.5", "multiscales": [multiscale]}}}
    root.mkdir(parents=True)
    (root / "zarr.json").write_text(json.dumps(group, indent=2))
    for name, data in LEVELS.items():
        ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": str(root / name)},
                 "metadata": {"shape": data.shape, "data_type": "uint16", "dimension_names": list("zyx"),
                              "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [16, 16, 16]}}}},
                create=True).result().write(data).result()


def write_n5(root: pathlib.Path) -> None:
    """An N5 pyramid with no offset: its lists are x-first and every level's corner is at the origin."""
    root.mkdir(parents=True)
    (root / "attributes.json").write_text(json.dumps({"n5": "2.0.0", "pixelResolution": {
        "dimensions": [4.0, 4.0, 4.0], "unit": "nm"}}))
    for i, (name, data) in enumerate(LEVELS.items()):
        store = ts.open({"driver": "n5", "kvstore": {"driver": "file", "path": str(root / name)},
                         "metadata": {"dimensions": list(data.shape[::-1]), "blockSize": [16, 16, 16],
                                      "dataType": "uint16", "compression": {"type": "raw"}}},
                        create=True).result()
        store.T.write(data).result()  # N5 is x-first; .T puts the C-order volume in place
        attributes = json.loads((root / name / "attributes.json").read_text())
        attributes["downsamplingFactors"] = [2**i] * 3
        (root / name / "attributes.json").write_text(json.dumps(attributes))


def show(path: pathlib.Path, level: str) -> None:
    meta = wa.metadata(path, level=level)
    voxels = wa.open_tensorstore(path, level=level)[0, 0, :4].read().result()
    print(f"  {level}: {meta.format:6} shape={meta.shape} voxel_size={meta.voxel_size} {meta.units[-1]}")
    print(f"      translation={meta.translation} corner={meta.corner} placed_by={meta.placed_by!r}")
    print(f"      voxels [0, 0, :4] = {voxels.tolist()}")


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        zarr_path, n5_path = pathlib.Path(tmp, "demo.zarr"), pathlib.Path(tmp, "demo.n5")
        write_ome_zarr(zarr_path)
        write_n5(n5_path)
        for path in (zarr_path, n5_path):
            node = wa.detect(path)
            print(f"{path.name}: a {node.format} {node.kind}")
            for level in LEVELS:
                show(path, level)


if __name__ == "__main__":
    main()
