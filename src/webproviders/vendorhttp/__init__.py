"""How requests to vendors travel: long-lived httpx clients with one owner, and the transport
that gives every vendor answer the same proxy routing, size cap and deadline.

``clients.py`` (the owner, :class:`~webproviders.vendorhttp.clients.HTTPClients`, and the
library's ``close()`` / ``aclose()``), ``transport.py`` (routing, the capped body reader, the
whole-request deadline), ``proxies.py`` (``web.proxy``, the proxy environment and
``NO_PROXY``) and ``urlauth.py`` (a base URL's ``user:pass@``). Providers reach it through :mod:`webproviders.kit` (``request_json``,
``get_client``, ``sdk_client``); the dispatcher holds one owner per registry.
"""
