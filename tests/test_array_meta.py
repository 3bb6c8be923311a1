"""ArrayMeta: dropping an axis, the derived corner and spatial axes, and unit conversion per kind of axis.

Records are built directly where no store is needed; the end-to-end tests write an OME 0.5 zarr v3 group in tmp_path.
Expected values follow the README: the corner is the translation less half a voxel on the spatial axes only, and a
unit is converted only on the axes of the kind asked for.
"""

from __future__ import annotations

import dataclasses
import json
import pickle
import warnings

import numpy as np
import pytest

import worldarray as wa
from conftest import BUILDERS, GROUP_BUILDERS, ome_pyramid


def czyx_meta(**changes) -> wa.ArrayMeta:
    fields = dict(
        shape=(2, 10, 20, 30),
        dtype="uint8",
        chunk_shape=(1, 5, 10, 15),
        shard_shape=(2, 10, 20, 30),
        axes=("c", "z", "y", "x"),
        axes_named=True,
        units=("", "nanometer", "nanometer", "micrometer"),
        voxel_size=(1.0, 8.0, 4.0, 2.0),
        translation=(5.0, 12.0, 6.0, 3.0),
        format="zarr3",
        path="/x",
    )
    fields.update(changes)
    return wa.ArrayMeta(**fields)


def tczyx_meta() -> wa.ArrayMeta:
    return wa.ArrayMeta(
        shape=(3, 2, 4, 5, 6),
        dtype="uint16",
        chunk_shape=(1, 1, 4, 5, 6),
        axes=("t", "c", "z", "y", "x"),
        axes_named=True,
        units=("second", "", "micrometer", "micrometer", "micrometer"),
        voxel_size=(0.5, 1.0, 2.0, 0.5, 0.25),
        translation=(1.5, 0.0, 1.0, 0.25, 0.125),
        format="zarr3",
        path="/x",
    )


# ---------------------------------------------------------------- drop_axis

# dropping y (index 2) of the (c, z, y, x) record leaves c, z and x
WITHOUT_Y = {
    "shape": (2, 10, 30),
    "chunk_shape": (1, 5, 15),
    "shard_shape": (2, 10, 30),
    "axes": ("c", "z", "x"),
    "units": ("", "nanometer", "micrometer"),
    "voxel_size": (1.0, 8.0, 2.0),
    "translation": (5.0, 12.0, 3.0),
}


@pytest.mark.parametrize("field", sorted(WITHOUT_Y))
def test_drop_axis_by_name_removes_that_axis_from_every_per_axis_field(field):
    assert getattr(czyx_meta().drop_axis("y"), field) == WITHOUT_Y[field]


@pytest.mark.parametrize("field", sorted(WITHOUT_Y))
def test_drop_axis_by_index_removes_that_axis_from_every_per_axis_field(field):
    assert getattr(czyx_meta().drop_axis(2), field) == WITHOUT_Y[field]


def test_drop_axis_by_a_negative_index_counts_from_the_end():
    assert czyx_meta().drop_axis(-1).axes == ("c", "z", "y")


def test_drop_axis_keeps_a_missing_shard_shape_missing():
    assert czyx_meta(shard_shape=None).drop_axis("c").shard_shape is None


def test_drop_axis_returns_a_new_record_and_leaves_the_old_one():
    meta = czyx_meta()
    meta.drop_axis("c")
    assert meta.axes == ("c", "z", "y", "x")


def test_drop_axis_of_a_missing_name_raises_naming_it():
    with pytest.raises(ValueError, match="time"):
        czyx_meta().drop_axis("time")


def test_drop_axis_of_an_index_out_of_range_raises_naming_it():
    with pytest.raises(ValueError, match="axis 4 does not exist"):
        czyx_meta().drop_axis(4)


def test_dropping_the_channel_axis_keeps_the_spatial_corner():
    # corner of z, y, x: 12 - 4, 6 - 2, 3 - 1
    assert czyx_meta().drop_axis("c").corner == (8.0, 4.0, 2.0)


# ---------------------------------------------------------------- corner and spatial


def test_spatial_is_the_indices_of_z_y_and_x():
    assert czyx_meta().spatial == (1, 2, 3)


def test_corner_is_translation_less_half_a_voxel_on_the_spatial_axes_only():
    # c keeps its translation 5; z 12 - 8/2, y 6 - 4/2, x 3 - 2/2
    assert czyx_meta().corner == (5.0, 8.0, 4.0, 2.0)


def test_ndim_counts_the_axes():
    assert czyx_meta().ndim == 4


# ---------------------------------------------------------------- in_units


def test_in_units_converts_the_space_axes_to_the_space_unit():
    meta = tczyx_meta().in_units(space="nanometer", time="millisecond")
    # micrometre -> nanometre is x 1000
    assert meta.voxel_size[2:] == pytest.approx((2000.0, 500.0, 250.0))
    assert meta.translation[2:] == pytest.approx((1000.0, 250.0, 125.0))
    assert meta.units[2:] == ("nanometer",) * 3


def test_in_units_converts_the_time_axis_to_the_time_unit():
    meta = tczyx_meta().in_units(space="nanometer", time="millisecond")
    # second -> millisecond is x 1000
    expected = (pytest.approx(500.0), pytest.approx(1500.0), "millisecond")
    assert (meta.voxel_size[0], meta.translation[0], meta.units[0]) == expected


def test_in_units_leaves_the_channel_axis_as_it_is():
    meta = tczyx_meta().in_units(space="nanometer", time="millisecond")
    assert (meta.voxel_size[1], meta.translation[1], meta.units[1]) == (1.0, 0.0, "")


def test_in_units_with_space_only_leaves_time_in_its_stored_unit():
    meta = tczyx_meta().in_units(space="nanometer")
    assert (meta.voxel_size[0], meta.translation[0], meta.units[0]) == (0.5, 1.5, "second")


def test_in_units_with_time_only_leaves_space_in_its_stored_unit():
    meta = tczyx_meta().in_units(time="millisecond")
    assert meta.voxel_size[2:] == (2.0, 0.5, 0.25)
    assert meta.units[2:] == ("micrometer",) * 3


def test_in_units_returns_a_new_record_and_leaves_the_old_one():
    meta = tczyx_meta()
    meta.in_units(space="nanometer", time="millisecond")
    assert meta.voxel_size == (0.5, 1.0, 2.0, 0.5, 0.25)


def test_in_nm_converts_space_to_nanometres():
    # z 8 nm, y 4 nm, x 2 micrometre = 2000 nm
    assert czyx_meta().in_nm().voxel_size == pytest.approx((1.0, 8.0, 4.0, 2000.0))


# ---------------------------------------------------------------- dtype: a numpy dtype, equal to its name


def test_a_dtype_string_given_to_arraymeta_becomes_a_numpy_dtype():
    assert isinstance(czyx_meta(dtype="uint8").dtype, np.dtype)


@pytest.mark.parametrize("spelling", [">u2", "<u2", "u2", np.uint16], ids=[">u2", "<u2", "u2", "np.uint16"])
def test_a_dtype_in_any_spelling_equals_its_name(spelling):
    assert czyx_meta(dtype=spelling).dtype == "uint16"


@pytest.mark.parametrize("bad", ["nonsense", None, 3])
def test_a_dtype_numpy_does_not_know_raises_naming_it(bad):
    with pytest.raises(ValueError, match=rf"/x: ArrayMeta.dtype is {bad!r}; expected a data type numpy knows"):
        czyx_meta(dtype=bad)


def test_replace_converts_a_new_dtype_string():
    assert isinstance(dataclasses.replace(czyx_meta(), dtype="int16").dtype, np.dtype)


def test_a_pickled_arraymeta_comes_back_equal_with_a_numpy_dtype():
    meta = czyx_meta(dtype="float32")
    back = pickle.loads(pickle.dumps(meta))
    assert back == meta and isinstance(back.dtype, np.dtype)


def test_metas_given_one_dtype_in_two_spellings_are_equal_and_hash_equal():
    by_name, by_type = czyx_meta(dtype="uint8"), czyx_meta(dtype=np.uint8)
    assert by_name == by_type and hash(by_name) == hash(by_type)


def test_repr_names_the_dtype():
    assert ", zarr3, uint16, {" in repr(czyx_meta(dtype=">u2"))


STORED_DTYPE = np.dtype("int16")


def pyramid_of(root, fmt) -> str:
    """A two-level pyramid of ``STORED_DTYPE`` in ``fmt``; returns the group's (or precomputed volume's) path."""
    name = STORED_DTYPE.name
    if fmt in ("zarr2", "zarr3"):
        levels = [("s0", (4, 4, 4), (1, 1, 1), (0.5, 0.5, 0.5)), ("s1", (2, 2, 2), (2, 2, 2), (1, 1, 1))]
        return ome_pyramid(root, "p", levels, fmt=fmt, dtype=name)
    if fmt == "n5":
        GROUP_BUILDERS["n5"](root, {"path": "p", "attrs": {"resolution": [1.0] * 3, "units": ["nm"] * 3}})
        for i, n in enumerate((4, 2)):
            BUILDERS["n5"](root, {"path": f"p/s{i}", "shape": [n] * 3, "dtype": name, "chunks": [n] * 3,
                                  "attrs": {"downsamplingFactors": [2**i] * 3}})
        return str(root / "p")
    scales = [{"key": f"s{i}", "size": [n] * 3, "resolution": [2**i] * 3, "voxel_offset": [0, 0, 0],
               "chunk_sizes": [[n] * 3], "encoding": "raw"} for i, n in enumerate((4, 2))]
    BUILDERS["precomputed"](root, {"path": "p", "info": {"type": "image", "data_type": name, "num_channels": 1,
                                                        "scales": scales}})
    return str(root / "p")


EVERY_FORMAT = pytest.mark.parametrize("fmt", ["zarr2", "zarr3", "n5", "precomputed"])


@EVERY_FORMAT
@pytest.mark.parametrize("opened", [True, False], ids=["opened", "documents"])
def test_metadata_gives_the_stored_dtype_as_a_numpy_dtype(tmp_path, fmt, opened):
    dtype = wa.metadata(pyramid_of(tmp_path, fmt), level=0, open=opened).dtype
    assert isinstance(dtype, np.dtype) and dtype == STORED_DTYPE


@EVERY_FORMAT
def test_pyramid_metas_give_every_levels_dtype_as_a_numpy_dtype(tmp_path, fmt):
    metas = wa.open_pyramid(pyramid_of(tmp_path, fmt)).metas()
    assert [type(meta.dtype) for meta in metas] == [type(STORED_DTYPE)] * 2
    assert [meta.dtype for meta in metas] == [STORED_DTYPE] * 2


@EVERY_FORMAT
def test_level_meta_gives_the_dtype_as_a_numpy_dtype(tmp_path, fmt):
    pyramid = wa.open_pyramid(pyramid_of(tmp_path, fmt))
    assert isinstance(pyramid.level_meta(pyramid.names[1]).dtype, np.dtype)


@EVERY_FORMAT
def test_metadata_dtype_itemsize_is_the_bytes_of_one_stored_value(tmp_path, fmt):
    assert wa.metadata(pyramid_of(tmp_path, fmt), level=0).dtype.itemsize == STORED_DTYPE.itemsize


# ---------------------------------------------------------------- end to end: units on a real store


def ome_store(root, name, axes, units, scale, translation, shape) -> str:
    """An OME 0.5 zarr v3 group ``name`` with one level s0 of ``shape``; returns the level's path."""
    kinds = {"t": "time", "c": "channel"}
    multiscale = {
        "axes": [{"name": a, "type": kinds.get(a, "space"), **({"unit": u} if u else {})}
                 for a, u in zip(axes, units, strict=True)],
        "datasets": [{"path": "s0", "coordinateTransformations": [
            {"type": "scale", "scale": list(scale)}, {"type": "translation", "translation": list(translation)}]}],
    }
    group = {"zarr_format": 3, "node_type": "group",
             "attributes": {"ome": {"version": "0.5", "multiscales": [multiscale]}}}
    (root / name).mkdir()
    (root / name / "zarr.json").write_text(json.dumps(group), encoding="utf-8")
    BUILDERS["zarr3"](root, {"path": f"{name}/s0", "shape": list(shape), "dtype": "uint8",
                             "chunks": list(shape), "document": {"dimension_names": list(axes)}})
    return str(root / name / "s0")


@pytest.fixture
def pixel_store(tmp_path):
    return ome_store(tmp_path, "pixel.zarr", ("z", "y", "x"), ("pixel",) * 3, (2.0, 3.0, 4.0), (1.0, 1.5, 2.0),
                     (4, 5, 6))


def test_open_of_a_pixel_unit_store_raises_naming_pixel_by_default(pixel_store):
    with pytest.raises(ValueError, match="pixel"):
        wa.open(pixel_store)


def test_open_with_strict_units_false_warns_about_a_pixel_unit(pixel_store):
    with pytest.warns(wa.MetadataWarning, match="pixel"):
        wa.open(pixel_store, strict_units=False)


def test_open_with_strict_units_false_reads_a_pixel_voxel_size_as_given(pixel_store):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", wa.MetadataWarning)
        vol = wa.open(pixel_store, strict_units=False)
    assert (vol.voxel_size, vol.translation) == ((2.0, 3.0, 4.0), (1.0, 1.5, 2.0))


def test_metadata_of_a_pixel_unit_store_raises_naming_pixel_when_converting(pixel_store):
    with pytest.raises(ValueError, match="pixel"):
        wa.metadata(pixel_store, units="nanometer")


def test_metadata_keeps_a_pixel_unit_when_no_conversion_is_asked(pixel_store):
    assert wa.metadata(pixel_store).units == ("pixel",) * 3


@pytest.fixture
def nm_store(tmp_path):
    return ome_store(tmp_path, "nm.zarr", ("z", "y", "x"), ("nanometer",) * 3, (8.0, 4.0, 4.0), (12.0, 6.0, 2.0),
                     (4, 5, 6))


def test_metadata_with_a_space_unit_dict_converts_the_voxel_size(nm_store):
    # nanometre -> micrometre is / 1000
    assert wa.metadata(nm_store, units={"space": "micrometer"}).voxel_size == pytest.approx((0.008, 0.004, 0.004))


def test_metadata_with_a_space_unit_dict_converts_the_translation(nm_store):
    assert wa.metadata(nm_store, units={"space": "micrometer"}).translation == pytest.approx((0.012, 0.006, 0.002))


def test_metadata_with_a_space_unit_dict_names_the_new_unit(nm_store):
    assert wa.metadata(nm_store, units={"space": "micrometer"}).units == ("micrometer",) * 3


def test_metadata_without_units_keeps_the_stored_ones(nm_store):
    meta = wa.metadata(nm_store)
    assert (meta.voxel_size, meta.units) == ((8.0, 4.0, 4.0), ("nanometer",) * 3)


@pytest.fixture
def series_store(tmp_path):
    units = ("second", "", "nanometer", "nanometer", "nanometer")
    return ome_store(tmp_path, "series.zarr", ("t", "c", "z", "y", "x"), units,
                     (2.0, 1.0, 8.0, 4.0, 4.0), (0.0, 0.0, 4.0, 2.0, 2.0), (2, 2, 3, 4, 5))


def test_metadata_with_a_space_unit_dict_leaves_time_in_seconds(series_store):
    meta = wa.metadata(series_store, units={"space": "micrometer"})
    assert (meta.voxel_size[0], meta.units[0]) == (2.0, "second")


def test_metadata_with_a_time_unit_converts_the_time_axis(series_store):
    meta = wa.metadata(series_store, units={"space": "micrometer", "time": "millisecond"})
    assert (meta.voxel_size[0], meta.units[0]) == (pytest.approx(2000.0), "millisecond")


def test_metadata_rejects_a_units_dict_with_an_unknown_kind(series_store):
    with pytest.raises(ValueError, match="channel"):
        wa.metadata(series_store, units={"channel": "micrometer"})
