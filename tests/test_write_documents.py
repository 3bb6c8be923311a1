"""Behaviour 10: written documents equal tests/fixtures/write.json and read back as written; levels placed and sized.

The expected documents in the fixture were derived by hand from the spec's rules. Every store is built under
tmp_path through tensorstore; documents go in as JSON files.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
import tensorstore as ts

import worldarray as wa
from worldarray.geometry import spatial_indices
from worldarray.write import level_placement, level_shape, ome_multiscales

FIXTURE = Path(__file__).parent / "fixtures" / "write.json"
CASES = json.loads(FIXTURE.read_text(encoding="utf-8"))["cases"]
BY_NAME = pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])


def _normal(doc):
    return json.loads(json.dumps(doc))


def _write(call: dict) -> dict:
    call = dict(call)
    axes, units = call.pop("axes"), call.pop("units")
    levels = [tuple(level) for level in call.pop("levels")]
    return ome_multiscales(axes, units, levels, **call)


def _write_json(path: Path, doc: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc), encoding="utf-8")


def _store_beside_arrays(root: Path, doc: dict, call: dict) -> None:
    """The group attributes written in the version's own zarr format, with one small array per level."""
    axes, v05 = call["axes"], call["version"] == "0.5"
    if v05:
        _write_json(root / "zarr.json", {"zarr_format": 3, "node_type": "group", "attributes": doc})
    else:
        _write_json(root / ".zgroup", {"zarr_format": 2})
        _write_json(root / ".zattrs", doc)
    for path, _, _ in call["levels"]:
        kvstore = {"driver": "file", "path": str(root / path)}
        if v05:
            metadata = {"shape": [2] * len(axes), "data_type": "uint8", "dimension_names": axes}
            ts.open({"driver": "zarr3", "kvstore": kvstore, "metadata": metadata}, create=True).result()
        else:
            metadata = {"shape": [2] * len(axes), "chunks": [2] * len(axes), "dtype": "|u1"}
            ts.open({"driver": "zarr", "kvstore": kvstore, "metadata": metadata}, create=True).result()


def _every_axis(values, fill, axes):
    """A list given over the spatial axes, put in place among all axes; a full list as it is."""
    if len(values) == len(axes):
        return tuple(values)
    out = [fill] * len(axes)
    for k, i in enumerate(spatial_indices(axes)):
        out[i] = values[k]
    return tuple(out)


# ---------------------------------------------------------------- documents


@BY_NAME
def test_a_written_document_equals_the_fixture_document(case):
    assert _normal(_write(case["call"])) == _normal(case["expect"])


def test_the_fixture_covers_both_versions_and_the_three_axis_sets():
    covered = {(c["call"]["version"], tuple(c["call"]["axes"])) for c in CASES}
    axis_sets = (("z", "y", "x"), ("c", "z", "y", "x"), ("t", "c", "z", "y", "x"))
    wanted = {(v, axes) for v in ("0.4", "0.5") for axes in axis_sets}
    assert wanted <= covered
    assert any(isinstance(c["call"]["units"], dict) for c in CASES)
    assert any(isinstance(c["call"]["units"], list) for c in CASES)


@BY_NAME
def test_every_level_reads_back_the_placement_axes_and_units_it_was_given(case, tmp_path):
    call, root = case["call"], tmp_path / "image.zarr"
    _store_beside_arrays(root, _write(call), call)
    axes = tuple(call["axes"])
    # OME's spelling of each axis's unit, as the hand-written fixture document states it
    multiscale = (case["expect"].get("ome") or case["expect"])["multiscales"][0]
    units = tuple(axis.get("unit", "") for axis in multiscale["axes"])
    for path, voxel_size, translation in call["levels"]:
        meta = wa.metadata(str(root), level=path)
        assert (meta.placed_by, meta.axes, meta.units) == ("ome", axes, units)
        assert meta.voxel_size == _every_axis(voxel_size, 1.0, axes)
        assert meta.translation == _every_axis(translation, 0.0, axes)


def test_the_name_is_written_even_when_empty():
    doc = ome_multiscales(("y", "x"), {"space": "nm"}, [("0", (1.0, 1.0), (0.5, 0.5))])
    assert doc["ome"]["multiscales"][0]["name"] == ""


def test_type_and_metadata_are_written_only_when_given():
    doc = ome_multiscales(("y", "x"), {"space": "nm"}, [("0", (1.0, 1.0), (0.5, 0.5))], version="0.4")
    assert not {"type", "metadata"} & set(doc["multiscales"][0])


def test_numbers_are_written_as_the_floats_given():
    given = (0.1 + 0.2, 10.48, 1e-300)
    doc = ome_multiscales(("z", "y", "x"), {"space": "nm"}, [("s0", given, given)])
    scale, translation = doc["ome"]["multiscales"][0]["datasets"][0]["coordinateTransformations"]
    assert json.loads(json.dumps(scale["scale"])) == list(given) == translation["translation"]


def test_a_unit_on_a_space_axis_is_written_in_ome_spelling():
    doc = ome_multiscales(("z", "y", "x"), ["\u03bcm", "km", "\u00c5"], [("s0", (1, 1, 1), (0, 0, 0))])
    assert [a["unit"] for a in doc["ome"]["multiscales"][0]["axes"]] == ["micrometer", "kilometer", "angstrom"]


# ---------------------------------------------------------------- level placement and shape


@pytest.mark.parametrize("factor", [2, 3, 4, 2.5])
def test_a_level_from_origin_0_keeps_its_corner_where_the_source_corner_is(factor):
    # the reader's BigDataViewer case: a 4 nm grid with translation 2 has its corner at 0, and so has every level
    voxel_size, translation = level_placement((4.0,), (2.0,), factor)
    assert voxel_size == (4.0 * factor,)
    assert translation[0] - voxel_size[0] / 2 == 0.0


def test_a_level_from_factor_2_of_a_4_nm_grid_at_2_is_8_nm_at_4():
    assert level_placement((4.0, 4.0, 4.0), (2.0, 2.0, 2.0), 2) == ((8.0, 8.0, 8.0), (4.0, 4.0, 4.0))


def test_an_origin_moves_the_level_by_that_many_source_voxels():
    at_0 = level_placement((4.0, 3.0), (2.0, -1.0), (2, 3))
    at_16 = level_placement((4.0, 3.0), (2.0, -1.0), (2, 3), origin=16)
    assert at_16[0] == at_0[0]
    assert at_16[1] == (at_0[1][0] + 16 * 4.0, at_0[1][1] + 16 * 3.0)


@pytest.mark.parametrize("origin", [0, 16])
@pytest.mark.parametrize("factors", [(2, 2, 2), (2, 3, 4)])
def test_a_block_mean_level_voxel_is_centred_where_level_placement_puts_it(origin, factors):
    shape, voxel_size, translation = (40, 27, 24), (4.0, 3.5, 10.48), (2.0, -1.75, 100.0)
    level_size, level_translation = level_placement(voxel_size, translation, factors, origin)
    counts = [(n - origin) // f for n, f in zip(shape, factors, strict=True)]  # whole blocks only
    for axis in range(3):
        # the source holds each voxel's centre along `axis`: translation + i * voxel_size
        centres = translation[axis] + np.arange(shape[axis]) * voxel_size[axis]
        source = np.broadcast_to(np.expand_dims(centres, [a for a in range(3) if a != axis]), shape)
        kept = source[tuple(slice(origin, origin + m * f) for m, f in zip(counts, factors, strict=True))]
        level = kept.reshape([d for m, f in zip(counts, factors, strict=True) for d in (m, f)]).mean(axis=(1, 3, 5))
        expected = level_translation[axis] + np.arange(counts[axis]) * level_size[axis]
        expected = np.expand_dims(expected, [a for a in range(3) if a != axis])
        np.testing.assert_allclose(level, np.broadcast_to(expected, counts), rtol=0, atol=1e-9)


@pytest.mark.parametrize(
    "shape, factors, origin, expected",
    [
        ((10,), 2, 0, (5,)),
        ((11,), 2, 0, (6,)),
        ((11,), 2, 1, (5,)),
        ((100,), 3, 16, (28,)),
        ((9,), 1.5, 0, (6,)),
        ((10,), 1.5, 0, (7,)),
        ((64, 48, 20), (2, 3, 4), 16, (24, 11, 1)),
        ((64, 48, 20), 2, (16, 0, 3), (24, 24, 9)),
    ],
)
def test_a_level_has_ceil_of_the_remaining_voxels_over_the_factor(shape, factors, origin, expected):
    assert level_shape(shape, factors, origin) == expected


def test_level_shape_agrees_with_the_block_count_when_blocks_fit():
    source = np.zeros((48, 30))
    level = source[16:, :].reshape(16, 2, 10, 3).mean(axis=(1, 3))
    assert level_shape(source.shape, (2, 3), (16, 0)) == level.shape


# ---------------------------------------------------------------- bad input

S0 = ("s0", (4.0, 4.0, 4.0), (2.0, 2.0, 2.0))
ZYX = ("z", "y", "x")
NM = {"space": "nm"}


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(version="0.6"), r"version is '0\.6'"),
        (dict(version="0.5", levels=[S0, ("s1", (8.0, 8.0), (4.0, 4.0))]),
         r"levels\[1\] \('s1'\) voxel_size is \[8\.0, 8\.0\]"),
        (dict(levels=[("s0", (4.0, 4.0, 4.0), (2.0,))]), r"levels\[0\] \('s0'\) translation is \[2\.0\]"),
        (dict(levels=[("s0", (4.0, 0.0, 4.0), (2.0, 2.0, 2.0))]),
         r"voxel_size is \[4\.0, 0\.0, 4\.0\]; expected finite numbers > 0"),
        (dict(levels=[("s0", (4.0, -1.0, 4.0), (2.0, 2.0, 2.0))]), r"voxel_size is \[4\.0, -1\.0"),
        (dict(levels=[("s0", (4.0, math.inf, 4.0), (2.0, 2.0, 2.0))]), r"voxel_size is \[4\.0, inf"),
        (dict(levels=[("s0", (4.0, 4.0, 4.0), (2.0, math.nan, 2.0))]), r"translation is \[2\.0, nan"),
        (dict(axes=("z", "y", "y")), r"axes is \['z', 'y', 'y'\]; expected distinct"),
        (dict(levels=[S0, S0]), r"levels paths are \['s0', 's0'\]"),
        (dict(levels=[]), r"levels is \[\]"),
        (dict(units={"space": "furlong"}), r"units\['space'\] is 'furlong'"),
        (dict(units=["nm", "second", "nm"]), r"units\[1\] is 'second' on the space axis 'y'"),
        (dict(units={"length": "nm"}), r"units is \{'length': 'nm'\}"),
        (dict(axes=("c", "z", "y", "x"), units=["nm", "nm", "nm", "nm"]),
         r"units\[0\] is 'nm' on the channel axis 'c'"),
        (dict(axes=("b", "z", "y", "x")), r"axes\[0\] is 'b', whose name implies no type; pass axis_types"),
        (dict(axis_types=["space", "spatial", None]), r"axis_types is \['space', 'spatial', None\]"),
        (dict(name=None), r"name is None"),
    ],
)
def test_a_bad_ome_multiscales_argument_raises_value_error_naming_it(kwargs, match):
    call = {"axes": ZYX, "units": NM, "levels": [S0], **kwargs}
    with pytest.raises(ValueError, match=match):
        ome_multiscales(call.pop("axes"), call.pop("units"), call.pop("levels"), **call)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: level_placement((4.0,), (2.0,), 0), r"factors is 0; expected finite numbers > 0: one number, or 1"),
        (lambda: level_placement((4.0, 4.0), (2.0, 2.0), (2, -2)),
         r"factors is \(2, -2\); expected finite numbers > 0"),
        (lambda: level_placement((4.0, 4.0), (2.0, 2.0), (2, 2, 2)),
         r"factors is \(2, 2, 2\); expected finite numbers > 0: one number, or 2 \(one per axis\)"),
        (lambda: level_placement((4.0,), (2.0,), 2, origin=1.5),
         r"origin is 1\.5; expected whole numbers >= 0: one number, or 1"),
        (lambda: level_placement((4.0,), (2.0,), 2, origin=-1), r"origin is -1"),
        (lambda: level_placement((4.0, 4.0), (2.0,), 2), r"translation is \[2\.0\] \(1 entries\); expected 2"),
        (lambda: level_placement((0.0,), (2.0,), 2), r"voxel_size is \[0\.0\]"),
        (lambda: level_shape((10.5,), 2), r"shape is \(10\.5,\); expected whole numbers"),
        (lambda: level_shape((10,), 2, origin=10), r"origin is 10; expected less than shape \(10,\) on axis 0"),
        (lambda: level_shape((10, 4), 2, origin=(0, 7)),
         r"origin is \(0, 7\); expected less than shape \(10, 4\) on axis 1"),
    ],
)
def test_a_bad_level_argument_raises_value_error_naming_it(call, match):
    with pytest.raises(ValueError, match=match):
        call()
