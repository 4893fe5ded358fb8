"""Runs an SQL statement on a database and prints the rows, one per line, fields
separated by spaces: the tests' view of a tuning database.

    /usr/bin/python3 query.py DB.sqlite "SELECT ..."
"""
import sqlite3
import sys

db = sqlite3.connect(sys.argv[1])
for row in db.execute(sys.argv[2]):
    print(" ".join(str(v) for v in row))
db.commit()
