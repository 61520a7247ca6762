"""Exploit-audit rows: faiss-rag plus one rule that reads only the protocol."""

__version__ = "0.1.0"
