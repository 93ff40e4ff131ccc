#!/usr/bin/env python3
"""Prints every entry under a folder (hidden ones included) with the SHA-256
of each file, sorted: two runs differ iff the folder changed."""
import hashlib
import os
import sys

root = sys.argv[1]
for dirpath, dirnames, filenames in sorted(os.walk(root)):
    dirnames.sort()
    rel = os.path.relpath(dirpath, root)
    print("dir ", rel)
    for name in sorted(filenames):
        path = os.path.join(dirpath, name)
        with open(path, "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()
        print("file", os.path.join(rel, name), digest)
