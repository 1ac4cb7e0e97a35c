"""Landed migrations keep their bytes: a database records each applied file's sha256, and
``actae migrate`` refuses a file that differs from what it applied (docs/operations.md). An
edit of a landed migration, even of a comment, would lock every database that applied it out
of its next upgrade: a change goes in a new migration. Earlier bytes that databases may hold
and that mean the same are accepted by ``actae.migrate._EQUIVALENT_BYTES``; a file whose
bytes must change (rare: a fix that cannot wait for the next migration) moves its landed
checksum there and its new one here, in the same commit.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from actae.migrate import _EQUIVALENT_BYTES, find_migrations

REPO = Path(__file__).resolve().parents[3]

LANDED = {
    1: "a847b5f26dcc615fd68121b6245fe643fd576dc28102cf9dd81cc9a9ddf2b6c2",
    2: "85f6312c6d766a99c5db477558f3867be51c0da0249351901e3094adff7175ae",
    3: "32ef6db8ca92991955f5687f99a9aee054fb98117a47ff89d77af91911b66d34",
    4: "3e22b0d3dce2b39f694ab7fee262b9476e27d14a0bd998432f88cc11f341dcb5",
    5: "753e4cc516011e10c2373d394851bac91f8fb8549e3f7b7745da5e2b6e4d1c4b",
    6: "debf2580e5a2b9fea995a46c33e69dfca9bb475b5088c6785b930f6730fbe1a4",
    7: "61d792f66fcc1366dcba7c55090aa8eaf78edb4c3521d7b57de2850eb1ab44d0",
    8: "501358d3a712e209076300c391d99071c1aa964e64a7a109e3c66299a7632a84",
    9: "698e9f98442072abcfda844e35bdb8b16f04ec8c693b3dba49b279d57bf47db8",
    10: "f064d1bf677ee1d49d68e051be6ccdc480fe753ece368c743e49259e5fab3119",
    12: "5e355d812afe4b0daa54b744d8775b76cdb6a4b79e800c3ee00e3fb107931aca",
    13: "b81d50ff019f48ea8997124f17b4d206cf3cd021aceaf26f61488e10c36276c0",
    14: "b143258401e76a92253834cd7363608ceb38763eeb87acf3316b493b4b5dd2a3",
    15: "889aefc1f093c639d34daf25b3ae43dbb76f8b2be79b6ab8b8cb6aebf5155432",
    16: "debaff7b340f214209904dd00bd819b626ad5d3c25d4472d0f6201dc6aab9f83",
    17: "a84e21c4dda431584b6bd841c35a34dfe72248d5b908ab3f705fc751ca620ddf",
    18: "fdecedf6f5cf522355a764ea02b6dd3c1afb93838c9148b9e004e1fcffc2d909",
    19: "6a93ccceff827ec2058d9f17fc6927252f448aed594ba3f1d88a98e90cbdc65a",
    20: "329715580b5294ad7b03716420afa1969ab57426059f8c280e0c1965d5860313",
    21: "520190c5ec165542db6e4d8dfeae0b5ac3e94f5b55ab8c4af6496c282669f727",
    22: "9df90da4301f1364e3c4f7411cc97e62017e15c2e987731a18044083b8fc4561",
    23: "fa40e531da0f331f5665eb37a5f1ddaf139eb34f3658abaa5b5c76330c1e61fc",
    24: "062a5c9c36efa83b481c6ee147ec4ab23bdabb40e44fd8cccc6ae7c9a0093d17",
    25: "99d784d4b94168adb5a80d4090f34b14496fee83bd0bdf17c173d217f538c748",
    26: "0161b362e7a4936491d4231b586b77c584828618853e0fa0f0f6b23405516110",
}


def test_every_migration_has_its_landed_bytes() -> None:
    found = {m.version: m.checksum for m in find_migrations(REPO)}
    changed = sorted(v for v in found if v in LANDED and found[v] != LANDED[v])
    assert not changed, (
        f"landed migrations edited: {changed}; add a new migration instead (see this module)")
    assert set(found) == set(LANDED), "a new migration: add its sha256 to LANDED"


def test_accepted_earlier_bytes_are_not_the_files_own() -> None:
    for version, earlier in _EQUIVALENT_BYTES.items():
        assert LANDED[version] not in earlier
        for path in (REPO / "migrations").glob(f"{version:04d}_*.sql"):
            assert hashlib.sha256(path.read_bytes()).hexdigest() not in earlier
