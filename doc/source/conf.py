"""Sphinx configuration of the vnfm documentation."""

project = 'vnfm'
copyright = 'vnfm developers'
author = 'vnfm developers'

extensions = []
source_suffix = {'.rst': 'restructuredtext'}
root_doc = 'index'
exclude_patterns = ['_build']
html_theme = 'alabaster'
pygments_style = 'sphinx'
