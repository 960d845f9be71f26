"""Sphinx configuration of the vnfm documentation (tox -e docs)."""

import os

project = 'vnfm'
copyright = 'vnfm developers'
author = 'vnfm developers'

extensions = [
    # The option reference, from vnfm's oslo.config.opts entry point.
    'oslo_config.sphinxext',
    # The policy reference, from vnfm's oslo.policy.policies entry point.
    'oslo_policy.sphinxext',
]
source_suffix = {'.rst': 'restructuredtext'}
root_doc = 'index'
exclude_patterns = ['_build', '_generated']
html_theme = 'alabaster'
pygments_style = 'sphinx'

# The extensions' :config-file: paths are relative to the repository.
os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
