"""The two things every command module shares: an event (a fact in the log) and a refusal."""

from __future__ import annotations

from dataclasses import dataclass


class Rejected(Exception):
    """A command the table refuses; the message goes back to the sender.

    ``code`` names the kind of refusal for clients that offer a way out
    (``"no_way"``: the GM may force the move).
    """

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class Event:
    type: str
    data: dict

    def to_dict(self) -> dict:
        return {"type": self.type, "data": self.data}
