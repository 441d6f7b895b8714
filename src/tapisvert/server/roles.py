"""Roles: administrators and moderators, given and taken back by an administrator, or on
the server's machine (``tapisvert admin``), straight in the database."""

from __future__ import annotations

from tapisvert.server.errors import ServerError
from tapisvert.server.storage import Storage, UserRow
from tapisvert.server.storage.moderation import audit_entry

ROLES = ("administrator", "moderator")
CONSOLE = "(console)"
"""Who acts from the server's machine, in the audit log."""


async def account(storage: Storage, name: str) -> UserRow:
    """The account of that name, or a refusal."""
    row = await storage.accounts.named(name)
    if row is None:
        raise ServerError("no_such_player", status=404, name=name[:32])
    return row


def role_named(role: str) -> str:
    if role.lower() not in ROLES:
        raise ServerError("no_such_role", role=role[:32], roles=", ".join(ROLES))
    return role.lower()


async def grant_role(storage: Storage, by: str, name: str, role: str, reason: str = "") -> bool:
    """Give ``name`` the role; False when they had it already. Guests have none."""
    role = role_named(role)
    target = await account(storage, name)
    if target.guest:
        raise ServerError("guest_role", name=target.name)
    audit = audit_entry(by, "grant", target.name, reason, role=role)
    return await storage.moderation.grant(target.id, role, by, audit)


async def revoke_role(storage: Storage, by: str, name: str, role: str, reason: str = "") -> bool:
    """Take the role back; False when they did not have it."""
    role = role_named(role)
    target = await account(storage, name)
    audit = audit_entry(by, "revoke", target.name, reason, role=role)
    return await storage.moderation.revoke(target.id, role, audit)
