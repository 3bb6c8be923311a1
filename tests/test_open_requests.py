"""B1: an open asks for everything it may need in one round, never for a document twice, and a server that takes few
connections at once has no connection attempt dropped.

Rounds are counted by a server that holds every request until none has arrived for a while (``serve_rounds``): the
number of releases is the number of rounds, whatever the time each takes. Connections are counted by a server made
as ``python -m http.server`` makes it, whose accept queue is read from the kernel before each accept
(``serve_like_http_server``).
"""

from __future__ import annotations

import json
import socket
import time
import warnings

import numpy as np
import pytest
from conftest import GROUP_BUILDERS, BUILDERS, build_precomputed, ome_pyramid
from servers import listen_queue, serve_like_http_server, serve_rounds

import worldarray as wa
from worldarray import connections, context, handle
from worldarray.detect import PROBE_KEYS

LEVELS = [("s0", (8, 8, 8), (4.0, 4.0, 4.0), (2.0, 2.0, 2.0)), ("s1", (4, 4, 4), (8.0, 8.0, 8.0), (4.0, 4.0, 4.0))]
INFO = {"@type": "neuroglancer_multiscale_volume", "type": "image", "data_type": "uint8", "num_channels": 1,
        "scales": [{"key": f"{n}_{n}_{n}", "size": [s, s, s], "resolution": [n, n, n], "voxel_offset": [0, 0, 0],
                    "encoding": "raw", "chunk_sizes": [[4, 4, 4]]} for n, s in ((4, 8), (8, 4))]}

# (format, level path, group, level=); every volume is one directory below the server root, under data/
CASES = [("zarr3", "data/g3.zarr/s1", "data/g3.zarr", "s1"), ("zarr2", "data/g2.zarr/s1", "data/g2.zarr", "s1"),
         ("n5", "data/g.n5/s1", "data/g.n5", "s1"), ("precomputed", "data/vol/8_8_8", "data/vol", 1)]
# The documents an open of the same path asks for again: those that decided it (the others were pointless).
AGAIN = {("zarr3", "path"): 2, ("zarr2", "path"): 7, ("n5", "path"): 10, ("precomputed", "path"): 9,
         ("zarr3", "group"): 2, ("zarr2", "group"): 7, ("n5", "group"): 10, ("precomputed", "group"): 9}


def cosem_n5(root, path: str) -> None:
    """An N5 group whose COSEM multiscales list its levels s0 and s1."""
    datasets = [{"path": name, "transform": {"axes": ["z", "y", "x"], "scale": list(size), "translate": list(shift),
                                             "units": ["nm"] * 3}} for name, _, size, shift in LEVELS]
    GROUP_BUILDERS["n5"](root, {"path": path, "attrs": {"multiscales": [{"datasets": datasets}]}})
    for name, shape, _, _ in LEVELS:
        BUILDERS["n5"](root, {"path": f"{path}/{name}", "shape": list(shape), "dtype": "uint8", "chunks": [4, 4, 4]})


def build(root):
    """The four pyramids under root/data."""
    ome_pyramid(root, "data/g3.zarr", LEVELS, fmt="zarr3", dtype="uint8")
    ome_pyramid(root, "data/g2.zarr", LEVELS, fmt="zarr2", dtype="uint8")
    cosem_n5(root, "data/g.n5")
    build_precomputed(root, {"path": "data/vol", "info": INFO})
    return root


@pytest.fixture(autouse=True)
def forgotten():
    """Each test starts with no open remembered (``handle.open_level`` hands out what it found again)."""
    handle.forget_opens()
    yield
    handle.forget_opens()


@pytest.fixture
def volumes(tmp_path):
    return build(tmp_path)


def open_case(base: str, case, form: str):
    _, path, group, level = case
    return wa.open(f"{base}/{path}") if form == "path" else wa.open(f"{base}/{group}", level=level)


@pytest.fixture(scope="module")
def warm(tmp_path_factory):
    """A rounds server over the volumes, its connections warm: every case opened once."""
    with serve_rounds(build(tmp_path_factory.mktemp("rounds")), quiet=0.05) as served:
        for case in CASES:
            for form in ("path", "group"):
                open_case(served.url, case, form)
        yield served


@pytest.fixture
def rounds(warm, forgotten):
    warm.reset()
    yield warm


# tensorstore releases before 0.1.86 (measured on 0.1.72) send an http kvstore's requests a few at a time, so what
# leaves at once is theirs to decide: there the rounds are not counted, and no key asked twice still is
ALL_AT_ONCE = context._release() >= (0, 1, 86)


def _one_round_unless_old(rounds, wanted: int) -> None:
    assert rounds.twice() == []
    if ALL_AT_ONCE:
        assert rounds.rounds == wanted


@pytest.mark.parametrize("form", ["path", "group"])
@pytest.mark.parametrize("case", CASES, ids=[case[0] for case in CASES])
def test_an_open_asks_for_every_document_in_one_round_and_none_twice(rounds, case, form):
    first = open_case(rounds.url, case, form)
    _one_round_unless_old(rounds, 1)
    assert connections.learned(rounds.url) is None  # it keeps connections: every request at once
    assert first.level_name in (case[3], "8_8_8")
    rounds.reset()
    again = open_case(rounds.url, case, form)
    _one_round_unless_old(rounds, 1)
    assert rounds.requests == AGAIN[case[0], form]
    assert again.meta == first.meta


def test_a_level_given_by_position_costs_one_more_round(rounds):
    wa.open(f"{rounds.url}/data/g3.zarr", level=1)
    _one_round_unless_old(rounds, 2)


def test_the_levels_of_a_pyramid_do_not_read_its_group_documents_again(rounds):
    pyramid = wa.open_pyramid(f"{rounds.url}/data/g2.zarr")
    group = set(rounds.asked)
    rounds.reset()
    pyramid.levels[1]
    _one_round_unless_old(rounds, 1)
    assert not group & set(rounds.asked)
    assert sorted(rounds.asked) == [f"/data/g2.zarr/s1/{key}" for key in sorted([*PROBE_KEYS, ".zattrs"])]


def test_an_open_of_a_document_that_changed_finds_the_change(volumes):
    level = volumes / "data" / "g3.zarr"
    assert wa.open(level, level="s1").voxel_size == (8.0, 8.0, 8.0)
    document = json.loads((level / "zarr.json").read_text())
    document["attributes"]["ome"]["multiscales"][0]["datasets"][1]["coordinateTransformations"][0]["scale"] = [6] * 3
    (level / "zarr.json").write_text(json.dumps(document))
    (level / "s1" / "zarr.json").write_text((level / "s1" / "zarr.json").read_text())  # the same bytes
    assert wa.open(level, level="s1").voxel_size == (6.0, 6.0, 6.0)


def test_an_open_that_warns_warns_every_time(tmp_path):
    ome_pyramid(tmp_path, "plain.zarr", LEVELS, fmt="zarr3", units=["", "", ""], dtype="uint8")
    for _ in range(2):
        with pytest.warns(wa.MetadataWarning, match="no unit"):
            wa.open(tmp_path / "plain.zarr" / "s1")


def test_an_open_that_warned_is_handed_out_again_giving_the_same_warnings_at_the_callers_line(tmp_path):
    ome_pyramid(tmp_path, "plain.zarr", LEVELS, fmt="zarr3", units=["", "", ""], dtype="uint8")
    given = []
    for _ in range(2):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            vol = wa.open(tmp_path / "plain.zarr" / "s1")
        given.append(([(w.category, str(w.message)) for w in caught], {w.filename for w in caught}, vol))
    (first, first_files, first_vol), (again, again_files, again_vol) = given
    assert first and again == first
    assert first_files == again_files == {__file__}
    assert again_vol.ts is first_vol.ts  # the open worked out once, handed out again


def test_an_open_handed_out_again_reads_the_same_voxels(volumes):
    path = volumes / "data" / "g2.zarr" / "s1"
    first = wa.open(path, mode="r+")
    first.write_index((0, 0, 0), (4, 4, 4), np.full((4, 4, 4), 7, np.uint8))
    again = wa.open(path)
    assert again.ts is not None and (again.read_index((0, 0, 0), (4, 4, 4)) == 7).all()


# -- a server that takes few connections at once -----------------------------------------------------------


def test_the_accept_queue_is_measured_and_a_burst_of_connections_overflows_it(tmp_path):
    with serve_like_http_server(tmp_path) as served:
        port = int(served.url.rsplit(":", 1)[1])
        burst = [socket.socket() for _ in range(8)]
        try:
            for connection in burst:
                connection.setblocking(False)
                connection.connect_ex(("127.0.0.1", port))
            for _ in range(500):  # the server measures its queue once it has stopped growing
                if served.queued:
                    break
                time.sleep(0.01)
        finally:
            for connection in burst:
                connection.close()
    assert served.backlog == 5 and max(served.queued) > served.backlog  # what a dozen requests at once do to it


@pytest.mark.parametrize("form", ["path", "group"])
def test_a_server_that_takes_few_connections_never_has_one_pending_past_its_backlog(volumes, form):
    with serve_like_http_server(volumes) as served:
        for case in CASES:
            vol = open_case(served.url, case, form)
            assert vol.read_index((0, 0, 0), vol.shape).shape == vol.shape  # every chunk at once
        open_case(served.url, CASES[1], form)  # a kept open: its documents read again
        assert connections.learned(served.url) == connections.FEW
    assert len(served.queued) > 20 and max(served.queued) <= served.backlog


def test_a_server_that_does_not_answer_is_sent_few_requests_and_asked_again_next_time(silent_server):
    assert connections.limit(silent_server, "a/zarr.json", 0.05) == connections.FEW
    assert connections.learned(silent_server) is False


def test_listen_queue_reads_a_listening_socket(tmp_path):
    with serve_like_http_server(tmp_path):
        pass
    listener = socket.socket()
    try:
        listener.bind(("127.0.0.1", 0))
        listener.listen(3)
        assert listen_queue(listener) == (0, 3)
    finally:
        listener.close()
