"""Renderers: a result dict in, text out. They never run anything."""
