"""Conventions 3 to 7 as pure parsing (documents in, ArrayMeta out), and the bad input each rule refuses."""

import inspect
import json
import math
import re
import warnings
from pathlib import Path

import pytest

import worldarray as wa
from conftest import BUILDERS, ome_pyramid
from worldarray.metadata import RULES, Document, Source, level_placements, parse, parse_documents

ZARRAY = {"zarr_format": 2, "shape": [4, 6, 8], "chunks": [2, 3, 4], "dtype": "<u2", "compressor": None,
          "fill_value": 0, "order": "C", "filters": None}


def ome_group(scale=(8, 4, 4), translation=(4, 2, 2), axes="zyx", unit="nanometer", path="s0", **extra):
    axes_list = [{"name": n, "type": "space", "unit": unit} for n in axes]
    transforms = [{"type": "scale", "scale": list(scale)}, {"type": "translation", "translation": list(translation)}]
    datasets = [{"path": path, "coordinateTransformations": transforms}]
    multiscale = {"version": "0.4", "axes": axes_list, "datasets": datasets}
    multiscale.update(extra)
    return {"multiscales": [multiscale]}


def zarr2(zattrs=None, parent=None, zarray=ZARRAY, path="/data/v.zarr/s0"):
    own = Document(path, path + "/.zattrs", zattrs or {})
    up = path.rsplit("/", 1)[0]
    ancestors = (Document(up, up + "/.zattrs", parent),) if parent is not None else ()
    return Source("zarr2", path, zarray, path + "/.zarray", own, ancestors)


def quiet_parse(source, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("error", wa.MetadataWarning)
        return parse(source, **kwargs)


def test_an_ome_translation_is_the_centre_of_voxel_0():
    meta = quiet_parse(zarr2(parent=ome_group()))
    assert (meta.voxel_size, meta.translation, meta.placed_by) == ((8, 4, 4), (4, 2, 2), "ome")
    assert meta.corner == (0, 0, 0)


def test_the_ome_scale_outranks_the_arrays_own_funlib_attributes_when_they_agree():
    meta = quiet_parse(zarr2({"voxel_size": [8, 4, 4], "offset": [0, 0, 0]}, ome_group()))
    assert meta.placed_by == "ome"


def test_a_voxel_size_conflict_raises_naming_both_values():
    with pytest.raises(ValueError, match=r"voxel_size is \[16\.0, 4\.0, 4\.0\].*\[8\.0, 4\.0, 4\.0\]"):
        parse(zarr2({"voxel_size": [16, 4, 4]}, ome_group()))


def test_metadata_conflicts_warn_reads_the_ome_scale():
    with pytest.warns(wa.MetadataWarning, match="OME scale"):
        meta = parse(zarr2({"voxel_size": [16, 4, 4]}, ome_group()), metadata_conflicts="warn")
    assert meta.voxel_size == (8, 4, 4)


def test_metadata_conflicts_takes_only_error_or_warn():
    with pytest.raises(ValueError, match="'ignore'"):
        parse(zarr2(parent=ome_group()), metadata_conflicts="ignore")


def test_the_multiscale_level_transform_applies_after_the_datasets():
    meta = quiet_parse(zarr2(parent=ome_group(coordinateTransformations=[{"type": "scale", "scale": [2, 2, 2]}])))
    assert meta.voxel_size == (16, 8, 8)
    assert meta.translation == (8, 4, 4)


def reversed_transforms(where: str) -> dict:
    """ome_group() with a translation listed before a scale, in the dataset's list or the multiscale's."""
    group = ome_group(coordinateTransformations=[{"type": "scale", "scale": [2, 2, 2]}])
    multiscale = group["multiscales"][0]
    owner = multiscale["datasets"][0] if where == "dataset" else multiscale
    if where == "multiscale":
        owner["coordinateTransformations"].append({"type": "translation", "translation": [1, 1, 1]})
    owner["coordinateTransformations"].reverse()
    return group


def test_a_translation_listed_before_the_scale_is_composed_in_the_order_listed():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", wa.MetadataWarning)
        meta = parse(zarr2(parent=reversed_transforms("dataset")))
    # translation (4, 2, 2), then scale (8, 4, 4), then the multiscale's scale 2: each scale multiplies the shift
    assert meta.voxel_size == (16, 8, 8) and meta.translation == (64, 16, 16)


@pytest.mark.parametrize("where,key", [("dataset", r"datasets\[path=s0\]\.coordinateTransformations"),
                                       ("multiscale", r"multiscales\[\]\.coordinateTransformations")],
                         ids=["dataset", "multiscale"])
def test_a_translation_listed_before_the_scale_warns_naming_the_document_and_the_list(where, key):
    with pytest.warns(wa.MetadataWarning, match=rf"/data/v\.zarr/\.zattrs: {key} is \[\{{'type': 'translation'.*"
                                                r"expected the scale first"):
        parse(zarr2(parent=reversed_transforms(where)))


def test_funlib_offset_is_a_corner():
    meta = quiet_parse(zarr2({"resolution": [8, 4, 4], "offset": [80, 40, 40]}))
    assert (meta.translation, meta.placed_by) == ((84, 42, 42), "funlib")


def test_funlib_keys_on_the_parent_group_place_an_attribute_less_array():
    meta = quiet_parse(zarr2({}, {"voxel_size": [8, 4, 4], "offset": [8, 4, 4]}))
    assert meta.translation == (12, 6, 6)


def test_a_plain_array_has_voxels_of_one_with_its_corner_at_the_origin():
    meta = quiet_parse(zarr2())
    expected = ((1, 1, 1), (0.5, 0.5, 0.5), None, False)
    assert (meta.voxel_size, meta.translation, meta.placed_by, meta.axes_named) == expected
    assert meta.axes == ("z", "y", "x")


def test_rules_are_ordered_and_named_after_placed_by():
    assert [r.name for r in RULES["zarr2"]] == ["ome", "spatial", "grid_mapping", "cosem", "funlib"]
    assert [r.name for r in RULES["zarr3"]] == ["ome", "spatial", "grid_mapping", "cosem", "funlib", "dimension_units"]
    assert [r.name for r in RULES["n5"]] == ["cosem", "funlib", "n5"]
    assert [r.name for r in RULES["precomputed"]] == ["precomputed"]


def test_units_are_kept_as_stored_until_converted():
    meta = quiet_parse(zarr2(parent=ome_group(unit="micrometer", scale=(0.008, 0.004, 0.004), translation=(0, 0, 0))))
    assert meta.units == ("micrometer",) * 3
    converted = meta.in_nm()
    assert converted.voxel_size == pytest.approx((8, 4, 4))
    assert converted.units == ("nanometer",) * 3


def test_a_missing_spatial_unit_is_nanometres_with_one_warning_when_converted():
    meta = quiet_parse(zarr2({"resolution": [8, 4, 4]}))
    assert meta.units == ("", "", "")
    with pytest.warns(wa.MetadataWarning, match="no unit") as caught:
        converted = meta.in_units(space="micrometer")
    assert len([w for w in caught if issubclass(w.category, wa.MetadataWarning)]) == 1
    assert converted.voxel_size == pytest.approx((0.008, 0.004, 0.004))


def test_an_unknown_unit_raises_only_when_converted():
    meta = quiet_parse(zarr2(parent=ome_group(unit="pixel")))
    assert meta.units == ("pixel",) * 3
    with pytest.raises(ValueError, match="pixel"):
        meta.in_nm()
    with pytest.warns(wa.MetadataWarning, match="pixel"):
        assert meta.in_units(space="nanometer", strict=False).voxel_size == (8, 4, 4)


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize("scale", [[8, 4], [8, 4, 4, 4]])
def test_an_ome_scale_of_the_wrong_length_raises_naming_the_file(scale):
    with pytest.raises(ValueError, match=r"/data/v.zarr/.zattrs.*scale.*expected 3 entries"):
        parse(zarr2(parent=ome_group(scale=scale, translation=(0,) * len(scale))))


@pytest.mark.parametrize("bad", [0, -4, math.inf, math.nan, "8", None, True])
def test_an_ome_scale_that_is_not_a_positive_finite_number_raises(bad):
    with pytest.raises(ValueError, match=r"/data/v.zarr/.zattrs.*scale"):
        parse(zarr2(parent=ome_group(scale=(bad, 4, 4))))


@pytest.mark.parametrize("bad", [0, -1, math.inf, "x"])
def test_a_funlib_voxel_size_that_is_not_a_positive_finite_number_raises(bad):
    with pytest.raises(ValueError, match=r"/data/v.zarr/s0/.zattrs: resolution"):
        parse(zarr2({"resolution": [bad, 4, 4]}))


def test_duplicate_axis_names_raise():
    with pytest.raises(ValueError, match=r"axis names.*\['y', 'y', 'x'\]"):
        parse(zarr2(parent=ome_group(axes="yyx")))


def test_ome_axes_shorter_than_the_array_raise_naming_the_file():
    with pytest.raises(ValueError, match=r"/data/v.zarr/.zattrs.*2 axes.*3 axes"):
        parse(zarr2(parent=ome_group(axes="yx", scale=(4, 4), translation=(2, 2))))


def test_a_scale_list_that_is_not_a_list_raises():
    with pytest.raises(ValueError, match="expected a list"):
        parse(zarr2({"resolution": "8,4,4"}))


def test_a_shape_that_is_not_whole_numbers_raises_naming_the_document():
    with pytest.raises(ValueError, match=r"s0/.zarray: shape"):
        parse(zarr2(zarray={**ZARRAY, "shape": [4, -1, 8]}))


def test_an_array_document_without_a_data_type_raises_naming_the_key():
    # np.dtype(None) is float64; a document that names no type must not be read as one
    missing = {key: value for key, value in ZARRAY.items() if key != "dtype"}
    with pytest.raises(ValueError, match=r"s0/.zarray: dtype is None; expected a data type numpy knows"):
        parse(zarr2(zarray=missing))

def test_an_unplaced_array_takes_nanometres_with_one_warning_when_converted():
    meta = quiet_parse(zarr2())
    assert meta.units == ("", "", "")
    with pytest.warns(wa.MetadataWarning, match="no unit"):
        assert meta.in_nm().units == ("nanometer",) * 3


def test_a_cosem_transform_is_tried_before_funlib_keys_on_the_same_array():
    transform = {"axes": ["z", "y", "x"], "scale": [8, 4, 4], "translate": [4, 2, 2], "units": ["nm"] * 3}
    meta = quiet_parse(zarr2({"transform": transform, "resolution": [16, 16, 16], "offset": [0, 0, 0]}))
    assert (meta.placed_by, meta.voxel_size, meta.translation) == ("cosem", (8, 4, 4), (4, 2, 2))


def test_a_warning_about_the_data_points_at_the_callers_line(tmp_path):
    # the package warns from several frames deep; the warning names the line that called it, not one of ours
    BUILDERS["zarr2"](tmp_path, {"path": "bare", "shape": [2, 2, 2], "chunks": [2, 2, 2], "dtype": "uint8"})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        wa.open(tmp_path / "bare")
    ours = [w for w in caught if issubclass(w.category, wa.MetadataWarning)]
    assert [Path(w.filename).name for w in ours] == ["test_metadata.py"], [(w.filename, w.lineno) for w in ours]


def _unitless(root):
    BUILDERS["zarr2"](root, {"path": "bare", "shape": [2, 2, 2], "chunks": [2, 2, 2], "dtype": "uint8"})
    return root / "bare"


def _scale_after_translation(root):
    path = ome_pyramid(root, "late.zarr", [("s0", (2, 2, 2), (4, 4, 4), (2, 2, 2))], fmt="zarr2")
    attrs = json.loads((Path(path) / ".zattrs").read_text())
    transforms = attrs["multiscales"][0]["datasets"][0]["coordinateTransformations"]
    transforms.reverse()
    (Path(path) / ".zattrs").write_text(json.dumps(attrs))
    return Path(path) / "s0"


def _unlisted(root):
    path = ome_pyramid(root, "listing.zarr", [("s0", (2, 2, 2), (4, 4, 4), (2, 2, 2))], fmt="zarr2")
    BUILDERS["zarr2"](root, {"path": "listing.zarr/extra", "shape": [2, 2, 2], "chunks": [2, 2, 2],
                             "dtype": "uint8", "attrs": {"resolution": [4, 4, 4]}})
    return Path(path) / "extra"


def _unknown_unit(root):
    BUILDERS["zarr2"](root, {"path": "pixel", "shape": [2, 2], "chunks": [2, 2], "dtype": "uint8",
                             "attrs": {"resolution": [4, 4], "units": ["pixel", "pixel"]}})
    return root / "pixel"


@pytest.mark.parametrize(("store", "call"), [
    (_unitless, lambda path: wa.open(path)),
    (_unitless, lambda path: wa.metadata(path, units="nanometer")),
    (_scale_after_translation, lambda path: wa.open(path)),
    (_scale_after_translation, lambda path: wa.open_pyramid(path.parent).levels[0]),
    (_unlisted, lambda path: wa.open(path)),
    (_unknown_unit, lambda path: wa.open(path, strict_units=False)),
], ids=["missing unit, open", "missing unit, metadata", "translation first, open", "translation first, pyramid",
        "parent does not list, open", "unknown unit, open"])
def test_every_warning_about_the_data_points_at_the_callers_line(tmp_path, store, call):
    path = store(tmp_path)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call(path)
    ours = [w for w in caught if issubclass(w.category, wa.MetadataWarning)]
    assert ours, "the store was meant to give a warning"
    assert {Path(w.filename).name for w in ours} == {"test_metadata.py"}, [(w.filename, w.lineno) for w in ours]


# ---------------------------------------------------------------- A21: a field of the wrong type names its document

ZARR3 = {"zarr_format": 3, "node_type": "array", "shape": [4, 6], "data_type": "uint8",
         "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2, 3]}},
         "chunk_key_encoding": {"name": "default"}, "codecs": [{"name": "bytes"}], "fill_value": 0}
INFO = {"type": "image", "data_type": "uint8", "num_channels": 1, "scales": [
    {"key": "4_4_4", "size": [6, 4, 2], "resolution": [4, 4, 4], "voxel_offset": [0, 0, 0],
     "chunk_sizes": [[3, 2, 2]], "encoding": "raw"}]}


def precomputed(info, scale=None):
    info = {**info, "scales": [{**info["scales"][0], **(scale or {})}]}
    own = Document("/data/v/4_4_4", "/data/v/info", info["scales"][0])
    return Source("precomputed", own.path, info, "/data/v/info", own, (Document("/data/v", "/data/v/info", {}),), 0)


def test_zarr3_dimension_names_that_are_a_number_raise_naming_the_document_and_the_value():
    with pytest.raises(ValueError, match=r"^memory://array/zarr\.json: dimension_names is 5; expected a list of "
                                         r"strings or nulls$"):
        parse_documents("zarr3", {**ZARR3, "dimension_names": 5})


@pytest.mark.parametrize("datasets", [True, 5], ids=["bool", "number"])
def test_ome_datasets_that_are_a_bool_or_a_number_raise_naming_the_group_document(datasets):
    group = ome_group(axes="zyx")
    group["multiscales"][0]["datasets"] = datasets
    with pytest.raises(ValueError, match=rf"^/data/v\.zarr/\.zattrs: multiscales\[0\]\.datasets is {datasets}; "
                                         r"expected a list of dataset objects$"):
        parse(zarr2(parent=group))


def test_an_n5_group_dataset_transform_scale_that_is_a_number_raises_naming_the_group_document():
    attrs = {"n5": "2.0.0", "multiscales": [{"datasets": [{"path": "s0", "transform": {"scale": 5}}]}]}
    group = Source("n5", "/data/v.n5", {}, "/data/v.n5/attributes.json",
                   Document("/data/v.n5", "/data/v.n5/attributes.json", attrs))
    with pytest.raises(ValueError, match=r"^/data/v\.n5/attributes\.json: multiscales\[\]\.datasets\[path=s0\]"
                                         r"\.transform\.scale is 5; expected a list of numbers$"):
        level_placements(group)


def test_precomputed_chunk_sizes_that_are_a_bool_raise_naming_the_info_and_the_scale():
    with pytest.raises(ValueError, match=r"^/data/v/info: scales\[0\]\.chunk_sizes is True; expected a list of "
                                         r"chunk shapes$"):
        parse(precomputed(INFO, {"chunk_sizes": True}))


@pytest.mark.parametrize("channels", [{}, "3", None, 2.5, True], ids=["object", "string", "null", "fraction", "bool"])
def test_precomputed_num_channels_that_is_no_whole_number_raises_naming_the_info(channels):
    with pytest.raises(ValueError, match=rf"^/data/v/info: num_channels is {re.escape(repr(channels))}; expected a "
                                         r"whole number >= 1$"):
        parse(precomputed({**INFO, "num_channels": channels}))


@pytest.mark.parametrize(("change", "key", "wanted"), [
    ({"chunk_grid": True}, "chunk_grid", "an object"),
    ({"chunk_grid": {"name": "regular", "configuration": 5}}, "chunk_grid.configuration", "an object"),
    ({"codecs": True}, "codecs", "a list of codec objects"),
    ({"codecs": {"name": "bytes"}}, "codecs", "a list of codec objects"),
    ({"codecs": [{"name": "sharding_indexed", "configuration": 5}]}, "codecs[0].configuration", "an object"),
], ids=["chunk_grid", "chunk_grid.configuration", "codecs bool", "codecs object", "sharding configuration"])
def test_a_zarr3_array_document_field_of_the_wrong_type_raises_naming_the_key(change, key, wanted):
    with pytest.raises(ValueError, match=rf"^memory://array/zarr\.json: {re.escape(key)} is .*; expected {wanted}$"):
        parse_documents("zarr3", {**ZARR3, **change})


def test_a_cosem_ordering_that_is_a_list_raises_naming_the_key_and_the_orders():
    transform = {"scale": [4, 4, 4], "translate": [0, 0, 0], "ordering": ["C"]}
    with pytest.raises(ValueError, match=r"/data/v\.zarr/s0/\.zattrs: transform\.ordering is \['C'\]; expected 'C' "
                                         "or 'F'"):
        parse(zarr2({"transform": transform}))


def test_a_voxel_size_too_large_for_a_float_raises_naming_the_key():
    with pytest.raises(ValueError, match=r"/data/v\.zarr/s0/\.zattrs: resolution is .*; expected a list of finite "
                                         "numbers"):
        parse(zarr2({"resolution": [10**400, 4, 4]}))


@pytest.mark.parametrize("unit", [5, ["nanometer"], True], ids=["number", "list", "bool"])
def test_an_ome_axis_unit_that_is_no_string_raises_naming_the_axis(unit):
    group = ome_group()
    group["multiscales"][0]["axes"][1]["unit"] = unit
    with pytest.raises(ValueError, match=r"^/data/v\.zarr/\.zattrs: multiscales\[\]\.axes\[1\]\.unit is .*; expected "
                                         "a string$"):
        parse(zarr2(parent=group))


def test_array_dimensions_that_are_not_strings_raise_naming_the_key_instead_of_being_read_as_their_text():
    with pytest.raises(ValueError, match=r"^/data/v\.zarr/s0/\.zattrs: _ARRAY_DIMENSIONS is \['z', 5, 'x'\]; "
                                         "expected a list of strings$"):
        parse(zarr2({"_ARRAY_DIMENSIONS": ["z", 5, "x"]}))


@pytest.mark.parametrize("rule", sorted({rule for rules in RULES.values() for rule in rules}, key=lambda r: r.name),
                         ids=lambda rule: rule.name)
def test_every_placement_rule_takes_the_one_signature(rule):
    parameters = list(inspect.signature(rule.find).parameters.values())
    assert [p.name for p in parameters] == ["source", "facts", "ndim", "conflicts"]
    assert all(p.kind is p.POSITIONAL_OR_KEYWORD and p.default is p.empty for p in parameters)


@pytest.mark.parametrize("rule", sorted({rule for rules in RULES.values() for rule in rules}, key=lambda r: r.name),
                         ids=lambda rule: rule.name)
def test_every_placement_rule_lives_in_the_module_named_after_its_convention(rule):
    assert rule.find.__module__ == f"worldarray.{rule.name}"
