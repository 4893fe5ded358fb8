"""Compares two searches of the same tasks: per task, the best time each
found in its first N trials, and a summary line.

    /usr/bin/python3 compare_searches.py A.sqlite SEARCH_A B.sqlite SEARCH_B N

Prints "task <node> <kind> <best A> <best B>" per task that both measured,
then "A better on <k> of <n> tasks, B better on <j>".
"""
import sqlite3
import sys


def best(path, search, trials):
    db = sqlite3.connect(path)
    rows = db.execute(
        "SELECT r.signature, t.node, t.kind, min(r.time_ns) FROM records r JOIN tasks t "
        "ON t.signature = r.signature AND t.target = r.target AND t.device = r.device "
        "WHERE r.search = ? AND r.status = 'ok' AND r.trial < ? GROUP BY r.signature",
        (search, trials))
    return {sig: (node, kind, ns) for sig, node, kind, ns in rows}


a_path, a_search, b_path, b_search, n = sys.argv[1:6]
a, b = best(a_path, a_search, int(n)), best(b_path, b_search, int(n))
a_wins = b_wins = 0
for sig in sorted(set(a) & set(b), key=lambda s: a[s][0]):
    node, kind, ta = a[sig]
    tb = b[sig][2]
    print(f"task {node} {kind} {ta:.0f} {tb:.0f}")
    a_wins += ta < tb
    b_wins += tb < ta
print(f"A better on {a_wins} of {len(set(a) & set(b))} tasks, B better on {b_wins}")
