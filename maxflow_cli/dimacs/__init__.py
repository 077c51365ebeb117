"""DIMACS `max` files: the reader (reader.py) and the writer (writer.py)."""
