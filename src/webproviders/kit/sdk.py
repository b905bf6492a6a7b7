"""Providers built on a vendor's own Python SDK.

An SDK is imported on first use only, off the event loop (:func:`import_packages`), so
:class:`SDKProvider` checks that it is installed without importing it and names the extra
to install when it is not. Running an SDK on the
library's HTTP clients, and reading the response it failed on, is in
:mod:`webproviders.kit.sdkhttp` (imported with the SDK, off the event loop). Every request
an SDK provider sends with a key (:meth:`SDKProvider.with_key`) runs on a worker thread's own
event loop (:mod:`webproviders.kit.ownloop`): an SDK builds its objects from the answer in
Python, without yielding, and a big answer would otherwise hold the caller's loop, and the
call, seconds past its deadline.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import ClassVar, TypeVar

from ..context import remaining_time
from ..manifest import Package
from ..offloop import import_off_loop
from ..provider import WebSearchProvider
from .ownloop import on_own_loop
from .vendor import VendorProvider

T = TypeVar("T")

#: The module that runs an SDK on the library's HTTP clients (``sdk_client``, ``hand_client``).
SDK_HTTP = f"{__package__}.sdkhttp"


async def import_packages(provider: WebSearchProvider) -> None:
    """Import the provider's packages (``packages:`` in its manifest) and the HTTP stack an
    SDK is run on (:mod:`webproviders.kit.sdkhttp`) in a worker thread, the first time only;
    call it before the first use of a vendor SDK or other heavy package
    (see :mod:`webproviders.offloop` for why)."""
    await import_off_loop(*(package.module for package in provider.packages()), SDK_HTTP)


class SDKProvider(VendorProvider):
    """A keyed vendor reached through its SDK; available when the SDK and a key are present.

    The SDK is the package the manifest lists (``packages:`` in ``plugin.yaml``); ``sdk_module``
    and ``sdk_pip`` name it for a provider registered without one.
    """

    #: The SDK's top-level module (``tavily``), checked with ``find_spec``.
    sdk_module: ClassVar[str] = ""
    #: What to ``pip install`` for it (``webproviders[tavily]``).
    sdk_pip: ClassVar[str] = ""

    def packages(self) -> list[Package]:
        declared = super().packages()
        if declared or not self.sdk_module:
            return declared
        return [Package(module=self.sdk_module, pip=self.sdk_pip or self.sdk_module)]

    async def set_up(self) -> None:
        """The SDK loaded before a rate limit's first slot (see :meth:`WebSearchProvider.set_up`)."""
        await import_packages(self)

    async def with_key(self, send: Callable[[str | None], Awaitable[T]]) -> T:
        """:meth:`VendorProvider.with_key`, on a worker thread's own event loop (see the module)."""
        return await on_own_loop(super().with_key, send)

    def call_timeout(self) -> float:
        """Seconds for one SDK request: the provider's timeout, cut to what the call has left."""
        left = remaining_time()
        own = self.timeout()
        return own if left is None else max(0.1, min(own, left))
