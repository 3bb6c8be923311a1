"""What the machine this process runs on offers, decided with no network call: whether it is a Google Cloud machine
(and, off one, the GCE metadata guard), and whether the AWS default credential chain has something to find.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, MutableMapping

from .diagnostics import logger

__all__ = ["DMI_PRODUCT_NAME", "aws_credentials_configured", "on_google_cloud", "point_gce_metadata_away"]

DMI_PRODUCT_NAME = "/sys/class/dmi/id/product_name"
# A reserved top-level domain: the name fails to resolve at once, so tensorstore's GCE probe gives up at once.
_UNREACHABLE_METADATA_ROOT = "metadata.invalid"
# What the AWS default credential chain reads besides the shared credentials file (instance roles are not seen)
_AWS_CREDENTIAL_VARIABLES = ("AWS_ACCESS_KEY_ID", "AWS_PROFILE", "AWS_WEB_IDENTITY_TOKEN_FILE",
                             "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "AWS_CONTAINER_CREDENTIALS_FULL_URI")


def aws_credentials_configured(environ: Mapping[str, str]) -> bool:
    """Whether the AWS default credential chain has something to find, decided with no network call: keys, a
    profile, a web identity or container credentials named in ``environ``, or a shared credentials file."""
    if any(environ.get(name) for name in _AWS_CREDENTIAL_VARIABLES):
        return True
    credentials = environ.get("AWS_SHARED_CREDENTIALS_FILE") or os.path.join(
        environ.get("HOME") or os.path.expanduser("~"), ".aws", "credentials")
    return os.path.isfile(credentials)


def on_google_cloud(product_name_file: str = DMI_PRODUCT_NAME, environ: Mapping[str, str] | None = None) -> bool:
    """Return True on a Google Cloud machine, decided with no network call.

    True when GCE_METADATA_HOST or GCE_METADATA_ROOT is set in ``environ`` (default ``os.environ``), or when
    the DMI product name in ``product_name_file`` contains "Google".

    >>> on_google_cloud("/nonexistent", environ={"GCE_METADATA_HOST": "169.254.169.254"})
    True
    """
    environ = os.environ if environ is None else environ
    if environ.get("GCE_METADATA_HOST") or environ.get("GCE_METADATA_ROOT"):
        return True
    try:
        with open(product_name_file, encoding="utf-8", errors="replace") as file:
            return "Google" in file.read()
    except OSError:
        return False


def point_gce_metadata_away(environ: MutableMapping[str, str] | None = None, *,
                            product_name_file: str = DMI_PRODUCT_NAME) -> None:
    """Off Google Cloud, point GCE_METADATA_ROOT at a name that fails at once; called before gs:// opens.

    tensorstore otherwise probes the GCE metadata server for credentials and stalls every gs:// open for
    seconds. On a Google machine (``on_google_cloud``) the environment is left alone, so the credentials its
    metadata server issues keep working.

    ``environ`` None changes ``os.environ``; ``product_name_file`` is passed to ``on_google_cloud``.

    >>> environ = {}
    >>> point_gce_metadata_away(environ, product_name_file="/nonexistent")
    >>> environ
    {'GCE_METADATA_ROOT': 'metadata.invalid'}
    """
    environ = os.environ if environ is None else environ
    if not on_google_cloud(product_name_file, environ):
        environ["GCE_METADATA_ROOT"] = _UNREACHABLE_METADATA_ROOT
        logger.debug("not a Google Cloud machine: GCE_METADATA_ROOT set to %s", _UNREACHABLE_METADATA_ROOT)
