"""The package's docstring examples see ``wa`` (the package) and ``np``, as they are written for a user who has them.

A plugin of tests/conftest.py, so its fixture reaches the doctests that ``--doctest-modules`` collects under src/.
"""

import numpy as np
import pytest

import worldarray


@pytest.fixture(autouse=True)
def _doctest_names(doctest_namespace):
    doctest_namespace.update(wa=worldarray, np=np)
