"""Store builders: a fixture case's store is written through tensorstore, then its documents are edited as JSON.

Every array holds ``np.arange(prod(shape)).reshape(shape)`` cast to its dtype, in C order, so a read-back is checked
against numpy alone; a zarr array whose fixture entry gives ``values`` (a coordinate array) holds those instead.
Shapes and chunks in the fixture are C order; the N5 and precomputed builders write them in their formats' own
x-first order, as real writers do. Attributes are merged into the stored document after the data
are written, because some of them (an N5 ``units`` string) are ones tensorstore itself would refuse.
"""

from __future__ import annotations

import json
import shutil
import threading
import math
from pathlib import Path

import numpy as np
import pytest
import tensorstore as ts

import worldarray as wa
from worldarray import retry, write

# the servers tests start and stop themselves: http_server, silent_server, s3_server
pytest_plugins = ("servers", "doctest_names")


def arange_values(shape, dtype) -> np.ndarray:
    """The values every fixture array holds: its C-order flat index, cast to its dtype."""
    return np.arange(math.prod(shape)).reshape(shape).astype(dtype)


def stored_values(array: dict) -> np.ndarray:
    """What a fixture array holds: its ``values`` (a flat C-order list, as a coordinate array holds them) when it
    gives them, else ``arange_values``."""
    if "values" in array:
        return np.asarray(array["values"]).astype(array["dtype"]).reshape(array["shape"])
    return arange_values(array["shape"], array["dtype"])


def _read_json(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _write_json(path: Path, doc: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=1, ensure_ascii=False), encoding="utf-8")


def _create_and_fill(spec: dict, values: np.ndarray) -> None:
    store = ts.open(spec, create=True).result()
    store.write(values).result()


def _file(root: Path, path: str) -> dict:
    return {"driver": "file", "path": str(root / path)}


def build_zarr2_array(root: Path, array: dict) -> None:
    document = dict(array.get("document", {}))
    created = {"shape": array["shape"], "chunks": array["chunks"], "dtype": np.dtype(array["dtype"]).str}
    created.update(document)
    compressor = created.get("compressor")
    if isinstance(compressor, dict) and "checksum" in compressor:
        # tensorstore refuses the checksum member numcodecs writes for zstd (spec Convention 8); the array is made
        # without it and the member is put back below, as a store written by numcodecs would hold it.
        created["compressor"] = {k: v for k, v in compressor.items() if k != "checksum"}
    values = stored_values(array)
    _create_and_fill({"driver": "zarr", "kvstore": _file(root, array["path"]), "metadata": created}, values)
    zarray = root / array["path"] / ".zarray"
    _write_json(zarray, {**_read_json(zarray), **document})
    if array.get("attrs"):
        _write_json(root / array["path"] / ".zattrs", array["attrs"])


def build_zarr3_array(root: Path, array: dict) -> None:
    created = {"shape": array["shape"], "data_type": array["dtype"]}
    if array.get("shards"):
        bytes_codec = {"name": "bytes", "configuration": {"endian": "little"}}
        created["chunk_grid"] = {"name": "regular", "configuration": {"chunk_shape": array["shards"]}}
        created["codecs"] = [{"name": "sharding_indexed", "configuration": {
            "chunk_shape": array["chunks"], "codecs": [bytes_codec],
            "index_codecs": [bytes_codec, {"name": "crc32c"}]}}]
    else:
        created["chunk_grid"] = {"name": "regular", "configuration": {"chunk_shape": array["chunks"]}}
    created.update(array.get("document", {}))
    values = stored_values(array)
    _create_and_fill({"driver": "zarr3", "kvstore": _file(root, array["path"]), "metadata": created}, values)
    zarr_json = root / array["path"] / "zarr.json"
    doc = _read_json(zarr_json)
    doc["attributes"] = {**doc.get("attributes", {}), **array.get("attrs", {})}
    _write_json(zarr_json, doc)


def build_n5_array(root: Path, array: dict) -> None:
    created = {
        "dimensions": array["shape"][::-1],
        "blockSize": array["chunks"][::-1],
        "dataType": array["dtype"],
        "compression": {"type": "raw"},
        **array.get("document", {}),
    }
    # tensorstore's N5 axes are the stored x-first ones, so the C-order values go in transposed.
    values = arange_values(array["shape"], array["dtype"]).transpose()
    _create_and_fill({"driver": "n5", "kvstore": _file(root, array["path"]), "metadata": created}, values)
    attributes = root / array["path"] / "attributes.json"
    _write_json(attributes, {**_read_json(attributes), **array.get("attrs", {})})


def precomputed_c_shape(info: dict, scale: dict) -> list[int]:
    """A scale's C-order shape: (z, y, x) for one channel, else (c, z, y, x)."""
    channels = info["num_channels"]
    return ([channels] if channels > 1 else []) + scale["size"][::-1]


def build_precomputed(root: Path, volume: dict) -> None:
    info = volume["info"]
    multiscale = {key: info[key] for key in ("type", "data_type", "num_channels")}
    for scale in info["scales"]:
        scale_metadata = {key: scale[key] for key in ("key", "size", "resolution", "voxel_offset", "encoding")}
        scale_metadata["chunk_size"] = scale["chunk_sizes"][0]
        if "sharding" in scale:
            scale_metadata["sharding"] = scale["sharding"]
        spec = {"driver": "neuroglancer_precomputed", "kvstore": _file(root, volume["path"]),
                "multiscale_metadata": multiscale, "scale_metadata": scale_metadata}
        # tensorstore's precomputed axes are (x, y, z, channel).
        values = arange_values(precomputed_c_shape(info, scale), info["data_type"])
        values = values.reshape([info["num_channels"]] + scale["size"][::-1]).transpose(3, 2, 1, 0)
        _create_and_fill(spec, values)
    _write_json(root / volume["path"] / "info", info)


def build_zarr2_group(root: Path, group: dict) -> None:
    _write_json(root / group["path"] / ".zgroup", {"zarr_format": 2})
    if group.get("attrs"):
        _write_json(root / group["path"] / ".zattrs", group["attrs"])


def build_zarr3_group(root: Path, group: dict) -> None:
    doc = {"zarr_format": 3, "node_type": "group", "attributes": group.get("attrs", {})}
    _write_json(root / group["path"] / "zarr.json", doc)


def build_n5_group(root: Path, group: dict) -> None:
    _write_json(root / group["path"] / "attributes.json", group.get("attrs", {}))


BUILDERS = {
    "zarr2": build_zarr2_array,
    "zarr3": build_zarr3_array,
    "n5": build_n5_array,
    "precomputed": build_precomputed,
}
GROUP_BUILDERS = {"zarr2": build_zarr2_group, "zarr3": build_zarr3_group, "n5": build_n5_group}


def _axis_type(name: str) -> str:
    return {"c": "channel", "t": "time"}.get(name, "space")


def ome_pyramid(root, path, levels, fmt="zarr3", axes=("z", "y", "x"), units=None, dtype="uint16") -> str:
    """An OME group (0.5 in zarr v3, 0.4 in zarr v2) with one arange array per (name, shape, scale, translation)."""
    units = units or ["nanometer" if _axis_type(a) == "space" else "" for a in axes]
    multiscale = {
        "axes": [{"name": a, "type": _axis_type(a), **({"unit": u} if u else {})}
                 for a, u in zip(axes, units, strict=True)],
        "datasets": [{"path": name, "coordinateTransformations": [
            {"type": "scale", "scale": list(scale)}, {"type": "translation", "translation": list(shift)}]}
            for name, _, scale, shift in levels],
    }
    attrs = ({"ome": {"version": "0.5", "multiscales": [multiscale]}} if fmt == "zarr3"
             else {"multiscales": [{"version": "0.4", **multiscale}]})
    GROUP_BUILDERS[fmt](root, {"path": path, "attrs": attrs})
    for name, shape, _, _ in levels:
        array = {"path": f"{path}/{name}", "shape": list(shape), "dtype": dtype,
                 "chunks": [max(1, n // 2) for n in shape]}
        if fmt == "zarr3":
            array["document"] = {"dimension_names": list(axes)}
        BUILDERS[fmt](root, array)
    return str(root / path)


def geospatial_group(root: Path, path: str, placing: dict, shape, names) -> Path:
    """A zarr v3 group whose ``spatial:`` and ``proj:`` attributes (``placing``) place the int8 arange array ``data``
    inside it, its dimensions named ``names``; return the array's path."""
    GROUP_BUILDERS["zarr3"](root, {"path": path, "attrs": placing})
    BUILDERS["zarr3"](root, {"path": f"{path}/data", "shape": list(shape), "chunks": list(shape), "dtype": "int8",
                             "document": {"dimension_names": list(names)}})
    return root / path / "data"


#: A north-up UTM zone (30N, 10 m pixels) and a geographic grid (EPSG:4326, half-degree pixels), as placed.
UTM_ZONE = {"spatial:dimensions": ["northing", "easting"], "spatial:transform": [10, 0, 500000, 0, -10, 6200000],
            "proj:code": "EPSG:32630"}
DEGREE_GRID = {"spatial:dimensions": ["lat", "lon"], "spatial:transform": [0.5, 0, -180, 0, -0.5, 90],
               "proj:code": "EPSG:4326"}


def bigstitcher_n5(root: Path) -> Path:
    """A BigStitcher-style N5 pyramid: a unitless resolution of 1 (voxels) and downsamplingFactors, x-first."""
    GROUP_BUILDERS["n5"](root, {"path": "bdv.n5", "attrs": {"resolution": [1.0, 1.0, 1.0]}})
    levels = (("s0", [1, 1, 1], [4, 8, 8]), ("s1", [2, 2, 1], [4, 4, 4]), ("s2", [4, 4, 2], [2, 2, 2]))
    for name, factors, shape in levels:
        BUILDERS["n5"](root, {"path": f"bdv.n5/{name}", "shape": shape, "dtype": "uint8", "chunks": shape,
                              "attrs": {"downsamplingFactors": factors}})
    return root / "bdv.n5"


def build_store(root: Path, case: dict) -> Path:
    """Write a case's groups, arrays and precomputed volumes under root; return root."""
    store = case["store"]
    for group in store.get("groups", []):
        GROUP_BUILDERS[group["format"]](root, group)
    for array in store.get("arrays", []):
        BUILDERS[array["format"]](root, array)
    for volume in store.get("precomputed", []):
        BUILDERS["precomputed"](root, volume)
    return root


#: Stores as rioxarray 0.19 writes them with zarr 3.1.6 (xarray's ``to_zarr`` after ``rio.write_crs`` and
#: ``rio.write_transform``), one directory per store: every document verbatim, and ``values.json`` giving each
#: array's shape and dtype and each coordinate array's values.
RIOXARRAY = Path(__file__).parent / "fixtures" / "rioxarray"


def rioxarray_store(root: Path, case: str) -> Path:
    """The rioxarray store ``case`` under ``root``: its documents copied as written, its chunks written with
    zarr-python (a coordinate array's values as rioxarray wrote them, any other array ``arange_values``; the 0-d
    grid-mapping variable holds none)."""
    import zarr  # the writer whose documents these are

    source, target = RIOXARRAY / case, root / f"{case}.zarr"
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("values.json"))
    listing = _read_json(source / "values.json")
    for name, array in listing["arrays"].items():
        if array["shape"]:
            values = listing["coords"].get(name)
            data = (np.asarray(values, dtype=array["dtype"]) if values is not None
                    else arange_values(array["shape"], array["dtype"]))
            zarr.open_array(str(target / name), mode="r+")[...] = data
    return target


@pytest.fixture
def build_case(tmp_path):
    """build_case(case) -> the root under tmp_path the case's open path is relative to."""
    return lambda case: build_store(tmp_path, case)


@pytest.fixture
def lost_race(monkeypatch):
    """A lost creation race: the probe of the array's path says absent ``absent`` times; the race's sleeps are
    recorded, not slept."""
    slept, real = [], write._probe
    monkeypatch.setattr(retry.time, "sleep", slept.append)

    def arrange(path: Path, absent: int = 1):
        target, left = wa.store.normalize(path), [absent]

        def probe(where):
            if where == target and left[0] > 0:
                left[0] -= 1
                return None
            return real(where)

        monkeypatch.setattr(write, "_probe", probe)
        return slept

    return arrange


def together(calls) -> list[tuple[str, object]]:
    """Run every call in its own thread, all released at once; ("ok", result) or ("error", exception) each."""
    barrier, outcomes = threading.Barrier(len(calls)), [None] * len(calls)

    def run(i: int) -> None:
        barrier.wait()
        try:
            outcomes[i] = ("ok", calls[i]())
        except Exception as error:  # each outcome is inspected by the test
            outcomes[i] = ("error", error)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return outcomes
