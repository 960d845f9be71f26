"""Sphinx configuration of the vnfm release notes (reno)."""

project = 'vnfm release notes'
copyright = 'vnfm developers'
author = 'vnfm developers'

extensions = ['reno.sphinxext']
root_doc = 'index'
exclude_patterns = ['_build']
html_theme = 'alabaster'
