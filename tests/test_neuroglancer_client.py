"""In Neuroglancer's own client, the layer ``neuroglancer_layer`` gives shows at a world point the value ``read``
gives for the one voxel there, for every kind of layer (B5), relabelled, selected and geospatial handles included.

Opt-in: it runs where Chromium and its driver (Debian's ``chromium`` and ``chromium-driver``) and the
``neuroglancer`` and ``selenium`` packages (the ``test`` extra) are installed, and is skipped at once elsewhere.

One headless Chromium runs the client that Neuroglancer's Python package bundles, served by its ``Viewer`` on
127.0.0.1, for every case. Each case builds its store in ``tmp_path``, serves it with CORS, and loads the layer into
a one-panel viewer whose dimensions are 1 of the handle's own unit each (1 nm, 1 m, 1 s, or a bare 1 for a unitless
or degree axis), zoomed in on the handle's own level (the coarsest of each pyramid). At each world point the view
moves there, a click in the middle of the panel runs an action, and the action reports what the client itself
found: the mouse position and the layer's value there. The oracle is ``vol.read`` of a one-voxel box around that
position (its extent taken by magnitude, so a north-up axis's box is not upside down), and on the other axes the
sample there: in an OME group the one whose centre (``vol.coords()``) is nearest, elsewhere the one from whose
stated position to the next the point lies. The points lie 0.3 and 0.7 of a voxel into voxels inside the volume
(into it along the index direction, so southward on a north-up axis; a quarter step either side of a sample's
stated position on the other axes), so a placement half a voxel off either way, or pointing the wrong way, reads
another voxel.
"""

from __future__ import annotations

import dataclasses
import os
import queue
import shutil
import time
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
if CHROMIUM is None or CHROMEDRIVER is None:
    pytest.skip("Chromium and chromedriver are not installed (Debian: chromium chromium-driver)",
                allow_module_level=True)
neuroglancer = pytest.importorskip("neuroglancer")
webdriver = pytest.importorskip("selenium.webdriver")
action_chains = pytest.importorskip("selenium.webdriver.common.action_chains")

import worldarray as wa  # noqa: E402 - after the skips, so a machine without a browser pays nothing
from conftest import BUILDERS, DEGREE_GRID, GROUP_BUILDERS, UTM_ZONE, geospatial_group, ome_pyramid  # noqa: E402
from servers import serve_with_cors  # noqa: E402
from worldarray.coordinate_spaces import output_unit  # noqa: E402
from worldarray.neuroglancer import navigation  # noqa: E402

# funlib stores name no unit; worldarray takes nanometres, and says so
pytestmark = pytest.mark.filterwarnings("ignore:.*have no unit:worldarray.MetadataWarning")

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--window-size=200,200")
WAIT = 30.0  # seconds one point may take to show a value (its chunks load), at most
NAME = "v"


@dataclasses.dataclass
class Client:
    """A headless Chromium showing Neuroglancer's client, and the actions its clicks report."""

    viewer: Any
    driver: Any
    body: Any  # the page's body, whose middle is the middle of the one panel
    reported: queue.Queue

    def shown(self, state: dict) -> tuple[np.ndarray, Any]:
        """The mouse position and the layer's value that the client reports in the middle of the view of ``state``."""
        self.viewer.set_state(neuroglancer.ViewerState(state))
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            while not self.reported.empty():
                self.reported.get_nowait()
            # the pointer jumps to the middle (no 250 ms glide per click) and clicks there
            pointer = action_chains.ActionChains(self.driver, duration=0)
            pointer.move_to_element_with_offset(self.body, 0, 0).click().perform()
            try:
                action = self.reported.get(timeout=5)
            except queue.Empty:
                continue
            found = action.selected_values.to_json().get(NAME, {}).get("value")
            if _is_state(action.viewer_state.to_json(), state) and found is not None:
                return np.asarray(action.mouse_voxel_coordinates, dtype=float), found
            time.sleep(0.05)
        raise TimeoutError(f"Neuroglancer showed no value for layer {state['layers'][0]['source']} at "
                           f"{state['position']} within {WAIT} s")


def _is_state(seen: dict, state: dict) -> bool:
    """Whether the client's state is the one set: the same position, and the same local position of the layer."""
    layer = next((x for x in seen.get("layers", ()) if x.get("name") == NAME), {})
    wanted = state["layers"][0].get("localPosition", [])
    return (np.allclose(seen.get("position", []), state["position"])
            and np.allclose(layer.get("localPosition", wanted), wanted))


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    neuroglancer.set_server_bind_address("127.0.0.1")
    viewer = neuroglancer.Viewer()
    reported: queue.Queue = queue.Queue()
    viewer.actions.add("probe", reported.put)
    with viewer.config_state.txn() as config:
        config.show_ui_controls = False
        config.show_panel_borders = False
        config.input_event_bindings.slice_view["click0"] = "probe"
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options, service=webdriver.ChromeService(executable_path=CHROMEDRIVER))
    try:
        driver.set_page_load_timeout(WAIT)
        driver.get(viewer.get_viewer_url())
        yield Client(viewer, driver, driver.find_element("xpath", "//body"), reported)
    finally:
        driver.quit()
        neuroglancer.stop()


# ---------------------------------------------------------------- the stores, one per kind of layer


def _series(root):
    """OME 0.5 (t, c, z, y, x): time points 2.5 s apart from 1 s, 8 channels, voxels of 4, 4, 8 nm off the origin."""
    return ome_pyramid(root, "tc.zarr", [("s0", (6, 8, 5, 6, 7), (2.5, 1, 4, 4, 8), (1, 0, 3, 5, 6))],
                       axes=("t", "c", "z", "y", "x"), units=["second", "", "nanometer", "nanometer", "nanometer"])


def _ome05(root):
    return wa.open(_series(root), level="s0")


def _ome04(root):
    path = ome_pyramid(root, "ome.zarr", [("s0", (8, 10, 12), (2, 4, 4), (11, 3, 2)),
                                          ("s1", (4, 5, 6), (4, 8, 8), (12, 5, 4))], fmt="zarr2")
    return wa.open(path, level="s1")


def _zarr3_array(root):
    BUILDERS["zarr3"](root, {"path": "plain.zarr", "shape": [5, 6, 7], "chunks": [3, 3, 3], "dtype": "uint16",
                             "document": {"dimension_names": ["z", "y", "x"]},
                             "attrs": {"dimension_units": ["40 nm", "4 nm", "4 nm"]}})
    return wa.open(root / "plain.zarr")


def _funlib_zarr2(root):
    BUILDERS["zarr2"](root, {"path": "fun.zarr", "shape": [5, 6, 7], "chunks": [3, 3, 3], "dtype": "uint16",
                             "attrs": {"resolution": [40, 4, 4], "offset": [400, 40, 52],
                                       "_ARRAY_DIMENSIONS": ["z", "y", "x"]}})
    return wa.open(root / "fun.zarr")


def _funlib_n5(root):
    BUILDERS["n5"](root, {"path": "fun.n5/raw", "shape": [5, 6, 7], "chunks": [3, 3, 3], "dtype": "uint16",
                          "attrs": {"resolution": [4, 4, 40], "offset": [52, 40, 400]}})
    return wa.open(root / "fun.n5" / "raw")


def _n5_pyramid(root):
    GROUP_BUILDERS["n5"](root, {"path": "vol.n5", "attrs": {
        "downsamplingFactors": [[1, 1, 1], [2, 2, 2]], "pixelResolution": {"dimensions": [4, 4, 40], "unit": "nm"}}})
    for name, shape in (("s0", [8, 10, 12]), ("s1", [4, 5, 6])):
        BUILDERS["n5"](root, {"path": f"vol.n5/{name}", "shape": shape, "chunks": [3, 3, 3], "dtype": "uint16"})
    return wa.open(root / "vol.n5", level="s1")


def _precomputed_volume(root, channels):
    info = {"type": "image", "data_type": "uint16", "num_channels": channels, "scales": [
        {"key": "8_8_40", "size": [7, 6, 5], "resolution": [8, 8, 40], "voxel_offset": [3, 2, 1], "encoding": "raw",
         "chunk_sizes": [[3, 3, 3]]}]}
    BUILDERS["precomputed"](root, {"path": "pre", "info": info})
    return root / "pre" / "8_8_40"


def _precomputed(root):
    return wa.open(_precomputed_volume(root, 1))


def _precomputed_channel_selected(root):
    return wa.open(_precomputed_volume(root, 3), select={"c": 1})  # Neuroglancer's channel dimension c^ made local


def _relabelled(root):
    return wa.open(_series(root), level="s0", voxel_size=(8, 8, 16), on_mismatch="relabel")


def _channel_selected(root):
    return wa.open(_series(root), level="s0", select={"c": 2})


def _time_selected(root):
    return wa.open(_series(root), level="s0", select={"t": 4})


def _utm_zone(root):  # north-up: rows count south, in metres
    return wa.open(geospatial_group(root, "zone.zarr", UTM_ZONE, (5, 7, 4), ("northing", "easting", "band")),
                   units=None)


def _degree_grid(root):  # EPSG:4326: unitless degree numbers in Neuroglancer, rows counting south
    return wa.open(geospatial_group(root, "grid.zarr", DEGREE_GRID, (6, 8), ("lat", "lon")))


CASES: dict[str, Callable] = {
    "ome 0.5 group, zarr v3, t c z y x": _ome05,
    "ome 0.4 group, zarr v2, level s1": _ome04,
    "zarr v3 array, dimension_units": _zarr3_array,
    "zarr v2 array, funlib offset": _funlib_zarr2,
    "n5 array, funlib offset": _funlib_n5,
    "n5 group, pixelResolution and factors, level s1": _n5_pyramid,
    "precomputed scale": _precomputed,
    "relabelled t c z y x": _relabelled,
    "select c": _channel_selected,
    "select t": _time_selected,
    "precomputed, 3 channels, select c": _precomputed_channel_selected,
    "spatial: north-up utm zone, metres, band": _utm_zone,
    "spatial: EPSG:4326 degrees": _degree_grid,
}


# ---------------------------------------------------------------- world points, and what worldarray reads there


def _points(vol) -> list[dict[str, float]]:
    """Two world points by axis name, in the handle's units, on different voxels of every axis: one 0.3 and one 0.7
    of a voxel in (a quarter step before and after a sample), so a half-voxel error either way reads another voxel."""
    coords = vol.coords()
    points = []
    for k in range(2):
        point = {}
        for i, axis in enumerate(vol.axes):
            n = vol.shape[i]
            index = 1 + k * (n - 3) if n >= 3 else 0
            if i in vol.spatial:
                s = vol.spatial.index(i)
                point[axis] = vol.corner[s] + (index + (0.3, 0.7)[k % 2]) * vol.voxel_size[s]
            else:
                step = coords[i][1] - coords[i][0] if n > 1 else 1.0
                point[axis] = coords[i][index] + (-0.25, 0.25)[k % 2] * step
        points.append(point)
    return points


def _sample(vol, axis: int, value: float) -> int:
    """The sample of a non-spatial axis at ``value``: the one centred nearest in an OME group, whose reading centres
    a sample on its stated position; elsewhere the one from whose stated position to the next ``value`` lies."""
    coords = vol.coords()[axis]
    if vol.meta.placed_by == "ome":
        return int(np.argmin(np.abs(coords - value)))
    step = coords[1] - coords[0] if len(coords) > 1 else 1.0
    return int(np.floor((value - coords[0]) / step))


def _read(vol, point: dict[str, float]) -> int:
    """The value worldarray reads at a world point: a one-voxel box on the spatial axes (whatever the sign of a
    step), and on the others the sample there (``_sample``)."""
    half = [abs(v) / 2 for v in vol.voxel_size]
    centre = [point[vol.axes[i]] for i in vol.spatial]
    block = vol.read(wa.Box([c - h for c, h in zip(centre, half, strict=True)],
                            [c + h for c, h in zip(centre, half, strict=True)]))
    index = []
    for i, axis in enumerate(vol.axes):
        if i in vol.spatial:
            assert block.shape[i] == 1, (block.shape, point)
            index.append(0)
        else:
            index.append(_sample(vol, i, point[axis]))
    return int(block[tuple(index)])


def _state(vol, layer: dict, point: dict[str, float]) -> dict:
    """A one-panel viewer state showing ``layer`` at ``point``: dimensions named as the layer's, each 1 of the
    handle's own unit on its axis (as Neuroglancer names it), so a point is given in the handle's numbers."""
    named = navigation(vol)["dimensions"]
    assert set(named) <= set(vol.axes), (named, vol.axes)
    grid = vol.grid
    dimensions = {name: [1, output_unit(grid.units[grid.axes.index(name)])[0]] for name in named}
    # The view is zoomed so that one of the handle's voxels is 50 pixels wide in the x-y panel, and the layer asks for
    # voxels of 2000 pixels on the screen: Neuroglancer then draws (and reads) the coarsest level of a pyramid, which
    # is the handle's own level in every pyramid here, not the finest.
    shown = dict(layer, name=NAME, crossSectionRenderScale=2000)
    if "c" in vol.axes:  # move the channel as a user moves its slider, leaving any pinned axis where the layer holds it
        local = dict(zip(layer.get("localDimensions", {}), layer.get("localPosition", []), strict=True))
        local["c'"] = point["c"]
        shown.update(localDimensions={name: [1, ""] if name == "c'" else layer["localDimensions"][name]
                                      for name in local}, localPosition=list(local.values()))
    return {"dimensions": dimensions, "position": [point[name] for name in named], "layers": [shown], "layout": "xy",
            "crossSectionScale": min(abs(v) for v in vol.voxel_size[-2:]) / 50, "showAxisLines": False,
            "showScaleBar": False}


@pytest.mark.parametrize("case", list(CASES))
def test_neuroglancer_shows_the_value_worldarray_reads_at_each_world_point(client, tmp_path, case):
    vol = CASES[case](tmp_path)
    with serve_with_cors(tmp_path) as served:
        layer = vol.neuroglancer_layer(url=f"{served.url}/{os.path.relpath(vol.path, tmp_path)}")
        seen, wanted = [], []
        for point in _points(vol):
            state = _state(vol, layer, point)
            mouse, value = client.shown(state)
            at = {**point, **{name: float(m) for name, m in zip(state["dimensions"], mouse, strict=True)}}
            seen.append(int(np.ravel(value)[0]) if isinstance(value, list) else int(value))
            wanted.append(_read(vol, at))
    print(f"{case}: Neuroglancer {seen}, worldarray {wanted}")
    assert seen == wanted
