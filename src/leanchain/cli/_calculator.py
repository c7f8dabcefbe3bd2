"""A safe arithmetic evaluator for the demo's calculator tool.

The expression is parsed into a syntax tree and only numbers and arithmetic operators are
evaluated; names, calls, attributes and everything else are rejected. Sizes are bounded so a
hostile expression cannot exhaust memory or time (``9**9**9``).
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable

__all__ = ["CalculatorError", "evaluate"]

MAX_LENGTH = 500
MAX_EXPONENT = 1_000
MAX_MAGNITUDE = 1e300

_BINARY: dict[type[ast.operator], Callable[[float, float], float]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_UNARY: dict[type[ast.unaryop], Callable[[float], float]] = {
    ast.UAdd: operator.pos,
    ast.USub: operator.neg,
}


class CalculatorError(ValueError):
    """An expression the calculator will not evaluate, with the reason."""


def _eval(node: ast.AST) -> float:
    if isinstance(node, ast.Expression):
        return _eval(node.body)
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        if isinstance(node.value, bool):
            raise CalculatorError("unsupported element 'bool': only numbers are allowed")
        if abs(node.value) > MAX_MAGNITUDE:
            # ``1e999`` parses to inf, which would make ``1e999 - 1e999`` a nan.
            raise CalculatorError(f"a number is too large (limit {MAX_MAGNITUDE:g})")
        return node.value
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _eval(node.left), _eval(node.right)
        if isinstance(node.op, ast.Pow) and abs(right) > MAX_EXPONENT:
            raise CalculatorError(f"exponent {right!r} is too large (limit {MAX_EXPONENT})")
        try:
            result = _BINARY[type(node.op)](left, right)
        except ZeroDivisionError:
            raise CalculatorError("division by zero") from None
        except OverflowError:
            raise CalculatorError("the result is too large") from None
        if isinstance(result, complex) or abs(result) > MAX_MAGNITUDE:
            raise CalculatorError("the result is too large or not a real number")
        return result
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_eval(node.operand))
    raise CalculatorError(
        f"unsupported element {type(node).__name__!r}: only numbers, + - * / // % ** "
        "and parentheses are allowed"
    )


def evaluate(expression: str) -> float | int:
    """The value of an arithmetic expression such as ``"(3 + 4) * 2.5"``.

    Raises:
        CalculatorError: the expression is too long, not arithmetic, or cannot be computed.
    """
    if len(expression) > MAX_LENGTH:
        raise CalculatorError(f"expression is longer than {MAX_LENGTH} characters")
    try:
        tree = ast.parse(expression.strip(), mode="eval")
    except SyntaxError as exc:
        raise CalculatorError(f"not a valid arithmetic expression: {exc.msg}") from None
    except (ValueError, RecursionError, MemoryError):
        # Python 3.11.0-3.11.3 report null bytes with ValueError; deep nesting may exhaust
        # the parser.
        raise CalculatorError("not a valid arithmetic expression") from None
    try:
        result = _eval(tree)
    except RecursionError:
        raise CalculatorError("the expression is nested too deeply") from None
    if isinstance(result, float) and result.is_integer() and math.isfinite(result):
        return int(result)
    return result
