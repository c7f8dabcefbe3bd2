"""Abstract methods without `abc.ABCMeta`: what keeps `Runnable` a plain class.

``isinstance(x, Runnable)`` runs on every lambda call to spot a returned runnable, and
ABCMeta's check costs four times a plain one. `object.__new__` refuses any class whose
``__abstractmethods__`` is not empty, metaclass or not, so `Runnable.__init_subclass__` sets it
by ABCMeta's rule and a subclass without `invoke` still cannot be instantiated.
"""

from __future__ import annotations

__all__ = ["abstract_methods"]


def abstract_methods(cls: type) -> frozenset[str]:
    """ABCMeta's rule: `cls`'s own abstract methods, plus inherited ones it does not override."""
    abstract = {
        name for name, value in vars(cls).items() if getattr(value, "__isabstractmethod__", False)
    }
    for base in cls.__bases__:
        for name in getattr(base, "__abstractmethods__", ()):
            if getattr(getattr(cls, name, None), "__isabstractmethod__", False):
                abstract.add(name)
    return frozenset(abstract)
