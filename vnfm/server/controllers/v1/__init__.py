"""/vnflcm/v1 (SOL002/SOL003 v2.6.1, API version 1.3.0): the v2 controllers
behind converters (requests to the v2 form, rows to v1 views)."""
