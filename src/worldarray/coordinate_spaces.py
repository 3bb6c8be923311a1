"""A Neuroglancer coordinate space gives each dimension a positive scale in a unit it names, so a signed step lives
in a source transform's matrix, never in a scale.

Neuroglancer names "" (unitless) and an SI prefix before ``m``, ``s``, ``Hz`` or ``rad/s``, and no other unit: no
degree, no radian (``supportedUnits`` in ``src/util/si_units.ts``); a coordinate space's scale must be a finite
positive number (``verifyFinitePositiveFloat`` in ``unitAndScaleFromJson``, ``src/coordinate_transform.ts``). So a
length is shown in metres or an SI multiple of them, a time in seconds, and an angle (a geographic CRS's degrees) as
a unitless dimension whose coordinates are the handle's own angle numbers.

A source transform is ``{"outputDimensions": {name: [scale, unit]}, "matrix": M}``, M of rank x (rank + 1), its
columns the source's input dimensions in Neuroglancer's order, matched by position when ``inputDimensions`` is absent
(``coordinateTransformSpecificationFromJson`` and the ``spec`` setter there). An input coordinate is Neuroglancer's
own model coordinate x; the linear part multiplies x times its input scale by M and divides by the output scale, and
the last column is in output coordinates (``transformBoundingBox`` there, ``scaleTransformSubmatrix`` in
``src/render_coordinate_transform.ts``, ``docs/concepts/coordinate_spaces.rst``). With Neuroglancer's corner of voxel
j at c + j d (x times the input scale, in metres, seconds or bare numbers) and the handle's outer edge of voxel j at
P0 + j v, v signed, the output scale is |v| (|v'| in metres or seconds), M = v' / d, and the last column is
P0 / |v| - sign(v) c / d.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from typing import Any

from . import units
from .geometry import centre_of, centres, in_voxels, magnitudes

__all__ = ["OME_UNITS", "ZARR_UNITS", "SHORT_UNITS", "SI_NAMES", "Dim", "Output", "output_name", "output_unit",
           "power_of_ten", "transform"]

# ---------------------------------------------------------------- Neuroglancer's unit spellings (src/util/si_units.ts)

_PREFIXES = (("Y", "yotta", 24), ("Z", "zetta", 21), ("E", "exa", 18), ("P", "peta", 15), ("T", "tera", 12),
             ("G", "giga", 9), ("M", "mega", 6), ("k", "kilo", 3), ("h", "hecto", 2), ("da", "deca", 1),
             ("", "", 0), ("d", "deci", -1), ("c", "centi", -2), ("m", "milli", -3), ("\u00b5", "micro", -6),
             ("n", "nano", -9), ("p", "pico", -12), ("f", "femto", -15), ("a", "atto", -18), ("z", "zepto", -21),
             ("y", "yocto", -24))
_BASES = (("meter", "m"), ("second", "s"))
_OTHERS = {"angstrom": (1e-10, "m"), "foot": (0.3048, "m"), "inch": (0.0254, "m"), "mile": (1609.34, "m"),
           "parsec": (3.0856775814913673e16, "m"), "yard": (0.9144, "m"), "minute": (60.0, "s"),
           "hour": (3600.0, "s"), "day": (86400.0, "s")}
#: The unit table's name of each Neuroglancer base unit.
SI_NAMES = {"m": "meter", "s": "second"}


def power_of_ten(exponent: int) -> float:
    """10 ** exponent, dividing for a negative one as Neuroglancer does.

    >>> power_of_ten(-9)
    1e-09
    """
    return 10.0**exponent if exponent >= 0 else 1 / 10.0**-exponent


#: OME axis units Neuroglancer reads (src/datasource/zarr/ome.ts): long names; "" is unitless.
OME_UNITS = {"": (1.0, ""), **_OTHERS,
             **{long + name: (power_of_ten(e), base) for _, long, e in _PREFIXES for name, base in _BASES}}
#: zarr ``dimension_units`` units (src/datasource/zarr/metadata/parse.ts): OME's and the SI short forms.
ZARR_UNITS = {**OME_UNITS, **{short + base: (power_of_ten(e), base) for short, _, e in _PREFIXES for _, base in _BASES}}
#: N5 ``units`` and a layer's output units: SI short forms, "u" for micro too, and "" (unitless).
SHORT_UNITS = {"": (1.0, ""), **{short + base: (power_of_ten(e), base) for short, _, e in (*_PREFIXES, ("u", "", -6))
                                 for _, base in _BASES}}


# ---------------------------------------------------------------- a source's input and a layer's output dimensions


@dataclasses.dataclass(frozen=True)
class Dim:
    """One input dimension of a source as Neuroglancer reads it: the lower corner of voxel j of the handle's level at
    ``corner + j * size``, in metres, seconds, or bare numbers when ``unit`` is ""."""

    axis: int  # the stored axis (C order) it is
    name: str  # Neuroglancer's name for it
    corner: float
    size: float
    unit: str
    centred: bool = False  # a stated position is the voxel's centre (OME), not its lower edge


def output_unit(unit: str) -> tuple[str, float]:
    """A handle unit as a Neuroglancer output unit: its spelling and the factor into it (a length Neuroglancer has
    no spelling for goes into nanometres, a time into seconds; an angle, which Neuroglancer cannot name, and a unit
    that is no length or time stay bare numbers).

    >>> output_unit("meter"), output_unit("micron"), output_unit("degree")
    (('m', 1.0), ('µm', 1.0), ('', 1.0))
    """
    found = units.kind(unit)
    if found in ("unknown", "angle"):
        return "", 1.0
    short = units.abbreviation(unit)
    if short in SHORT_UNITS:
        return short, 1.0
    target = units.NANOMETER if found == "space" else SI_NAMES["s"]
    return units.abbreviation(target), units.factor(unit, target)


@dataclasses.dataclass(frozen=True)
class Output:
    """One output dimension of a layer: its name, its positive scale and unit as Neuroglancer holds them, voxel 0's
    outer edge in its coordinates, and ``step``, the coordinates one stored voxel moves (-1 on a north-up axis)."""

    name: str
    scale: float
    unit: str
    start: float
    step: float = 1.0

    @classmethod
    def of(cls, name: str, voxel_size: float, unit: str, start: float) -> Output:
        """The output dimension of an axis of signed ``voxel_size`` in the handle's ``unit``, voxel 0's outer edge at
        ``start``: its scale the size's magnitude, in the unit Neuroglancer names.

        >>> Output.of("northing", -10.0, "meter", 6200000.0)
        Output(name='northing', scale=10.0, unit='m', start=620000.0, step=-1.0)
        """
        spelling, into = output_unit(unit)
        size = magnitudes((voxel_size,))[0]
        return cls(name, size * into, spelling, in_voxels(start, size), in_voxels(voxel_size, size))

    def centre(self, index: float) -> float:
        """The centre of voxel ``index`` in this dimension's coordinates."""
        return centre_of(self.start, self.step, index)

    def middle(self, count: int) -> float:
        """The middle of ``count`` voxels from voxel 0 in this dimension's coordinates."""
        return centres((self.start,), (self.step * count,))[0]


def output_name(axis: str, channel: bool, suffix: str, taken: Sequence[str]) -> str:
    """An output dimension name Neuroglancer accepts (a letter, then letters, digits, _); a channel is local.

    >>> output_name("2d", False, "'", ["x"]), output_name("c", True, "'", [])
    ('d2d', "c'")
    """
    name = re.sub(r"[^A-Za-z0-9_]", "_", axis)
    name = name if re.match(r"[A-Za-z]", name) else f"d{name}"
    while name in taken or name + suffix in taken:
        name += "_"
    return name + (suffix if channel else "")


def transform(outputs: Sequence[Output], dims: Sequence[Dim]) -> dict[str, Any]:
    """The source transform that puts Neuroglancer's voxel j of every input dimension where the outputs place it:
    positive scales, each step's sign in the matrix.

    >>> transform([Output.of("y", -10.0, "meter", 100.0)], [Dim(0, "y", 0.0, 1.0, "")])["matrix"]
    [[-10.0, 10.0]]
    """
    rank = len(dims)
    matrix = [[0.0] * (rank + 1) for _ in range(rank)]
    for k, (dim, out) in enumerate(zip(dims, outputs, strict=True)):
        held = out.step * out.scale * SHORT_UNITS[out.unit][0]  # the signed step as Neuroglancer holds it
        matrix[k][k] = in_voxels(held, dim.size)
        matrix[k][rank] = out.start - out.step * in_voxels(dim.corner, dim.size)
    return {"outputDimensions": {o.name: [o.scale, o.unit] for o in outputs}, "matrix": matrix}
