"""Code that runs inside the user-data sandbox, not in vnfm: the runner of
a package's user-data class and ``vnfm_userdata``, the helper module such
classes may import. Both use only the standard library."""
