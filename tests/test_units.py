"""Convention 2 and additions A9, A11: one unit table, conversions only when asked."""

import math
import re

import pytest

import worldarray as wa
from worldarray import units

LENGTH_SPELLINGS = {
    "nanometer": 1e-9, "nanometre": 1e-9, "nm": 1e-9,
    "micrometer": 1e-6, "micrometre": 1e-6, "um": 1e-6, "\u00b5m": 1e-6, "\u03bcm": 1e-6,
    "millimeter": 1e-3, "mm": 1e-3, "centimeter": 1e-2, "cm": 1e-2, "meter": 1.0, "metre": 1.0, "m": 1.0,
    "angstrom": 1e-10, "\u00c5": 1e-10, "picometer": 1e-12, "pm": 1e-12,
    "kilometer": 1e3, "kilometre": 1e3, "km": 1e3,
}
TIME_SPELLINGS = {
    "second": 1.0, "s": 1.0, "millisecond": 1e-3, "ms": 1e-3, "us": 1e-6, "\u00b5s": 1e-6,
    "nanosecond": 1e-9, "ns": 1e-9, "minute": 60.0, "hour": 3600.0, "day": 86400.0,
}


@pytest.mark.parametrize("spelling,metres", sorted(LENGTH_SPELLINGS.items()))
def test_every_length_spelling_is_in_the_table(spelling, metres):
    assert math.isclose(wa.units.TABLE["length"][spelling], metres)
    assert units.kind(spelling) == "space"


@pytest.mark.parametrize("spelling,seconds", sorted(TIME_SPELLINGS.items()))
def test_every_time_spelling_is_in_the_table(spelling, seconds):
    assert math.isclose(wa.units.TABLE["time"][spelling], seconds)
    assert units.kind(spelling) == "time"


def test_factor_converts_a_value_into_the_target_unit():
    assert units.factor("um", "meter") == pytest.approx(1e-6)
    assert units.factor("\u00b5m", "nanometer") == pytest.approx(1000.0)
    assert units.factor("km", "m") == pytest.approx(1000.0)
    assert units.factor("ms", "second") == pytest.approx(1e-3)


@pytest.mark.parametrize("unit,target", [("nm", "second"), ("pixel", "nm"), ("nm", "degrees_north")])
def test_factor_names_both_units_when_they_cannot_convert(unit, target):
    with pytest.raises(ValueError, match=f"{unit}.*{target}"):
        units.factor(unit, target)


def test_factors_between_powers_of_ten_are_exact():
    assert units.factor("um", "nm") == 1000.0
    assert 4 * units.factor("\u00b5m", "nanometer") == 4000.0
    assert 10.48 * units.factor("nm", "nanometre") == 10.48
    assert units.factor("km", "nm") == 1e12


def test_unknown_strings_are_of_unknown_kind():
    assert units.kind("degrees_north") == "unknown"
    assert units.kind("") == "unknown"


@pytest.mark.parametrize("spelling", ["nanometer", "nanometre", "nm"])
def test_abbreviation_is_nm_for_any_spelling_of_nanometre(spelling):
    assert units.abbreviation(spelling) == "nm"


@pytest.mark.parametrize("spelling", sorted(set(LENGTH_SPELLINGS) | set(TIME_SPELLINGS)))
def test_abbreviation_and_ome_name_exist_for_every_spelling(spelling):
    short, long = units.abbreviation(spelling), units.ome_name(spelling)
    assert units.factor(short, long) == pytest.approx(1.0)
    assert units.kind(short) == units.kind(spelling)


def test_ome_name_spells_micrometre_as_ome_does():
    assert units.ome_name("um") == "micrometer"
    assert units.ome_name("\u00b5m") == "micrometer"
    assert units.ome_name("km") == "kilometer"


@pytest.mark.parametrize("call", [units.abbreviation, units.ome_name])
def test_a_unit_the_table_does_not_know_raises_naming_it(call):
    with pytest.raises(ValueError, match="furlong"):
        call("furlong")


# each spelling differs from one the table holds only by case or spaces; the target is of that spelling's kind
@pytest.mark.parametrize("spelling,target", [("Mm", "nm"), ("Ms", "s"), ("Nanometer", "nm"), ("NM", "nm"),
                                             ("UM", "nm"), ("MS", "s"), ("S", "s"), (" nm", "nm")])
def test_a_spelling_the_table_does_not_hold_exactly_is_an_unknown_unit(spelling, target):
    # "Mm" is a megametre and "Ms" a megasecond, not mm and ms: case is part of a unit's name
    assert units.kind(spelling) == "unknown" and units.lookup(spelling) is None
    with pytest.raises(ValueError, match=re.escape(repr(spelling))):
        units.factor(spelling, target)


def test_converting_an_axis_whose_unit_differs_from_a_table_spelling_only_by_case_raises():
    with pytest.raises(ValueError, match="axis 'z' has unit 'Mm', which the unit table does not know"):
        units.convert((4.0,), (2.0,), ("Mm",), ("nm",), (0,), where="here", axes=("z",))


# ---------------------------------------------------------------- a units= argument, read once


@pytest.mark.parametrize("given,space,time,per_axis", [
    (None, None, None, None), ("um", "um", None, None), ({"space": "nm", "time": "s"}, "nm", "s", None),
    ({"time": "ms"}, None, "ms", None), (["", "um", "nm"], None, None, ("", "um", "nm")),
])
def test_a_units_argument_is_a_name_a_dict_by_kind_or_one_unit_per_axis(given, space, time, per_axis):
    assert units.Request.of(given) == units.Request(space, time, per_axis)


@pytest.mark.parametrize("given", [{"length": "nm"}, 4, {"space": 4}, [1, 2]])
def test_any_other_units_argument_raises_naming_it_and_the_shapes_accepted(given):
    with pytest.raises(ValueError, match=rf"units is {re.escape(repr(given))}; expected a unit name, a dict"):
        units.Request.of(given)


def test_open_converts_each_axis_to_its_own_unit_given_one_per_axis(tmp_path):
    vol = wa.create(tmp_path / "g.zarr" / "s0", (2, 4, 4), "uint8", (1000, 8, 8), (500, 4, 4), chunks=2)
    again = wa.open(vol.path, units=["micrometer", "nanometer", "nanometer"])
    assert again.voxel_size == pytest.approx((1.0, 8.0, 8.0)) and again.grid.units == ("micrometer", "nanometer",
                                                                                          "nanometer")


def test_convert_takes_a_missing_spatial_unit_as_nanometres_with_one_warning_naming_the_axes():
    with pytest.warns(wa.MetadataWarning, match=r"here: spatial axes \('y', 'x'\) have no unit") as caught:
        sizes, _, names = units.convert((4.0, 8.0), (2.0, 4.0), ("", ""), ("um", "um"), (0, 1), where="here",
                                        axes=("y", "x"))
    assert len(caught) == 1 and sizes == pytest.approx((0.004, 0.008)) and names == ("um", "um")


@pytest.mark.parametrize("plural,singular", [("nanometers", "nanometer"), ("nanometres", "nanometer"),
                                             ("micrometres", "micrometer"), ("microns", "micrometer"),
                                             ("millimeters", "millimeter"), ("kilometres", "kilometer"),
                                             ("meters", "meter"), ("picometers", "picometer")])
def test_the_plural_of_every_length_unit_is_that_unit(plural, singular):
    assert units.factor(plural, singular) == 1.0
    assert units.ome_name(plural) == singular


def test_abbreviations_have_no_plural():
    assert units.kind("nms") == units.kind("ums") == "unknown"


def _nanometre_pyramid(tmp_path):
    vol = wa.create(tmp_path / "p.zarr" / "s0", (4, 4, 4), "uint8", 4, 2, chunks=4)
    return vol.path.rsplit("/", 1)[0]


@pytest.mark.parametrize("asked", ["parsec", {"space": "parsec"}, {"time": "meter"}, ["", "nm", "furlong"]])
def test_a_unit_converted_to_is_checked_at_the_call_and_named(tmp_path, asked):
    group = _nanometre_pyramid(tmp_path)
    for call in (lambda: wa.open_pyramid(group, units=asked), lambda: wa.open(group, level=0, units=asked),
                 lambda: wa.metadata(group, level=0, units=asked)):
        with pytest.raises(ValueError, match=r"units is .*is not a (length|time|length, a time or an angle) unit "
                                             r"the unit table knows") as raised:
            call()
        assert "has unit 'nanometer'" not in str(raised.value)  # the store's unit is not to blame


def test_no_placement_is_reported_in_a_unit_it_was_not_converted_to(tmp_path):
    group = _nanometre_pyramid(tmp_path)
    with pytest.raises(ValueError, match="parsec"):
        wa.open_pyramid(group, units="parsec").placements()
