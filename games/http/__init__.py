"""HTTP: all that answers a request: the REST views, the live streams (a match's and a
player's feed), the web page, and their plumbing: the OpenAPI schema's parts, the error
body and its codes, throttles, and the classes DRF's settings name."""
