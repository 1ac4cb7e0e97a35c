"""Charge a customer exactly once, however often the worker runs: a short run_tool example.

    ACTAE_DSN=... python python/examples/charge_once.py

The "payment API" is actae.fakes.FakeProvider (its books are tables in your database); swap
in a real client that accepts an idempotency key. Run the script twice: the second run
replays the stored charge and the provider is not asked again.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from actae import SyncActaeClient, ToolContext
from actae.fakes import FakeProvider


def main(dsn: str, order_id: str = "4471") -> dict[str, Any]:
    provider = FakeProvider(dsn, namespace="charge-once/")

    def charge(ctx: ToolContext) -> dict[str, Any]:
        # The same key on every retry and reclaim: the provider charges once.
        return provider.charge(ctx.idempotency_key, "charge", ctx.params)

    def find_charge(ctx: ToolContext) -> dict[str, Any] | None:
        # Asked only when a crash left the last attempt's outcome unknown.
        return provider.find(ctx.idempotency_key)

    with SyncActaeClient(dsn) as client:
        receipt: dict[str, Any] = client.run_tool(
            charge, channel_id=f"order-{order_id}", key_name="charge", tool_name="charge_card",
            params={"order_id": order_id, "amount_cents": 4200}, reconcile=find_charge)
    print(f"order {order_id}: charge effect #{receipt['effect_id']}; the provider has seen "
          f"{provider.requests()} request(s) in total")
    return receipt


if __name__ == "__main__":
    if not os.environ.get("ACTAE_DSN"):
        sys.exit("set ACTAE_DSN to a migrated Actae database (actae dev prints one)")
    main(os.environ["ACTAE_DSN"])
