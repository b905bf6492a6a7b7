"""The plugin author's toolkit: base classes and helpers any provider may use."""
