#!/usr/bin/env python3
"""Word statistics of a text file, as JSON (the word-stats skill)."""
import argparse
import collections
import json
import re

COMMON = set("a an and are as at be by for from has in is it its of on or that the this to was were will with".split())

parser = argparse.ArgumentParser(description=__doc__)
parser.add_argument("file")
parser.add_argument("--top", type=int, default=10)
args = parser.parse_args()
with open(args.file, encoding="utf-8", errors="replace") as handle:
    text = handle.read()
words = re.findall(r"[A-Za-z][A-Za-z'-]*", text)
sentences = [s for s in re.split(r"[.!?]+\s", text) if s.strip()]
counts = collections.Counter(w.lower() for w in words if w.lower() not in COMMON)
print(json.dumps({"words": len(words), "sentences": len(sentences), "top": counts.most_common(args.top)}, indent=2))
