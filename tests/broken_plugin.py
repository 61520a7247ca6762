"""A plugin module that fails to import, for the plugin-loading tests."""

raise ImportError("this plugin is broken on purpose (missing dependency 'nonexistent')")
