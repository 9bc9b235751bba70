"""Compiled code shared by every Python process of a test session, keyed by the source's hash.

The local workflow runner gives each job a fresh checkout with no bytecode, so each `infx`
step compiled the package again (about a third of a short step's CPU). On the runner's
PYTHONPATH this module makes imports from checkouts read code compiled once per distinct
source text from $INFX_TEST_CODE_CACHE; co_filename is set to the importing file as the
import system does for moved bytecode, so tracebacks name the checkout's file. The
interpreter's own and installed packages keep their normal bytecode.
"""

from __future__ import annotations

import _imp
import hashlib
import marshal
import os
import sys
from importlib.machinery import (
    BYTECODE_SUFFIXES,
    EXTENSION_SUFFIXES,
    SOURCE_SUFFIXES,
    ExtensionFileLoader,
    FileFinder,
    SourceFileLoader,
    SourcelessFileLoader,
)

CACHE = os.environ.get("INFX_TEST_CODE_CACHE", "")
_INSTALLED = tuple({os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)})


class _CachedSourceLoader(SourceFileLoader):
    def get_code(self, fullname: str):
        path = self.get_filename(fullname)
        source = self.get_data(path)
        key = hashlib.blake2b(source, digest_size=20, person=sys.implementation.cache_tag.encode()[:16])
        cached = os.path.join(CACHE, key.hexdigest())
        try:
            with open(cached, "rb") as handle:
                code = marshal.loads(handle.read())
        except (OSError, ValueError, EOFError):
            code = self.source_to_code(source, path)
            temporary = f"{cached}.{os.getpid()}"
            try:
                with open(temporary, "wb") as handle:
                    handle.write(marshal.dumps(code))
                os.replace(temporary, cached)
            except OSError:
                pass
            return code
        _imp._fix_co_filename(code, path)
        return code


_finder_for = FileFinder.path_hook((_CachedSourceLoader, SOURCE_SUFFIXES),
                                   (ExtensionFileLoader, EXTENSION_SUFFIXES),
                                   (SourcelessFileLoader, BYTECODE_SUFFIXES))


def _hook(entry: str):
    real = os.path.realpath(entry or os.getcwd())
    if not os.path.isdir(real) or real.startswith(_INSTALLED):
        raise ImportError("not a checkout")
    return _finder_for(entry)


if CACHE and os.path.isdir(CACHE):
    sys.path_hooks.insert(0, _hook)
    sys.path_importer_cache.clear()
