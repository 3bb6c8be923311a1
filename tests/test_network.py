"""The spec's one optional network test: a public OpenOrganelle volume with a non-integer z spacing, read anonymously.

Skipped within about a second when the public bucket cannot be reached (these build machines have no internet).
"""

import math
import socket
import threading

import pytest

import worldarray as wa

BUCKET_HOST = "janelia-cosem-datasets.s3.amazonaws.com"
VOLUME = "s3://janelia-cosem-datasets/jrc_hela-2/jrc_hela-2.zarr/recon-1/em/fibsem-uint8"


def _reachable(host: str, seconds: float = 1.0) -> bool:
    """Resolve and connect within ``seconds`` in a daemon thread, so a stalled resolver cannot hold the suite."""
    answer = []

    def probe():
        try:
            with socket.create_connection((host, 443), timeout=seconds):
                answer.append(True)
        except OSError:
            pass

    thread = threading.Thread(target=probe, daemon=True)
    thread.start()
    thread.join(seconds)
    return bool(answer)


@pytest.fixture(scope="module")
def public_bucket():
    if not _reachable(BUCKET_HOST):
        pytest.skip(f"{BUCKET_HOST} is not reachable from this machine")


@pytest.fixture
def no_endpoint_override(monkeypatch):
    for name in ("AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3"):
        monkeypatch.delenv(name, raising=False)


def test_a_non_integer_z_spacing_is_reported_as_the_float_it_is_at_every_level(public_bucket, no_endpoint_override):
    pyramid = wa.open_pyramid(VOLUME)
    z_sizes = [sizes[0] for sizes in pyramid.voxel_sizes()]
    assert z_sizes and all(not math.isclose(z, round(z)) for z in z_sizes)
    # each level against the next: the pairs are one fewer than the levels, so the shorter list ends the zip
    assert all(math.isclose(b / a, 2.0, rel_tol=1e-6) for a, b in zip(z_sizes, z_sizes[1:], strict=False))


def test_a_corner_aligned_box_reads_exactly_the_voxels_it_covers(public_bucket, no_endpoint_override):
    volume = wa.open(VOLUME, level="first")
    voxels = (4, 8, 8)
    end = tuple(c + n * s for c, n, s in zip(volume.corner, voxels, volume.voxel_size, strict=True))
    box = wa.Box(volume.corner, end)
    data = volume.read(box)
    assert data.shape == voxels
    assert (data == volume.read_index((0, 0, 0), voxels)).all()
