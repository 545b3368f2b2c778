"""Exercise 2(d), ``value_backward``: code a student could write, each entry ``(name, source, mistake,
words, cases)``: the mistake the judge must name (none: it must pass), words its message must
contain (line numbers count from the first line of the source, as in a notebook cell that
starts with it) and the cases that show it ("visible" unless said). Read by the tests
(``tests/catalogue.py``); it imports nothing of the project."""

import textwrap

_value_class = '''
class Value:
    def __init__(self, data, children=()):
        self.data = data
        self.grad = 0.0
        self._children = children
        self._backward = lambda: None

    def __repr__(self):
        return f"Value(data={{self.data}}, grad={{self.grad}})"

    def __add__(self, other):
        out = Value(self.data + other.data, (self, other))

        def _backward():
{add}

        out._backward = _backward
        return out

    def __mul__(self, other):
        out = Value(self.data * other.data, (self, other))

        def _backward():
{mul}

        out._backward = _backward
        return out

    def backward(self):
{backward}
'''
_add = """
    self.grad += out.grad
    other.grad += out.grad
"""
_mul = """
    self.grad += other.data * out.grad
    other.grad += self.data * out.grad
"""
_topological = """
order, seen = [], set()

def visit(node):
    if node not in seen:
        seen.add(node)
        for child in node._children:
            visit(child)
        order.append(node)

visit(self)
self.grad = 1.0
for node in reversed(order):
    node._backward()
"""


def value(name, backward=_topological, add=_add, mul=_mul, mistake=None, words=(), cases="visible"):
    """A catalogue entry for ``Value``: the given class with these three parts (line numbers in
    its messages count from the ``class`` line: ``add`` starts on line 15, ``mul`` on line 25,
    ``backward`` on line 32)."""
    def part(body, spaces):
        return textwrap.indent(textwrap.dedent(body).strip("\n"), " " * spaces)

    source = _value_class.format(add=part(add, 12), mul=part(mul, 12), backward=part(backward, 8))
    return name, source, mistake, list(words), cases



ENTRIES = [
    # (d) the backward step of Value
    value("micrograd"),
    value("seen_by_value_not_by_node", """
        order, seen = [], set()

        def visit(node):
            if node.data not in seen:
                seen.add(node.data)
                for child in node._children:
                    visit(child)
                order.append(node)
        visit(self)
        self.grad = 1.0
        for node in reversed(order):
            node._backward()
    """, mistake="not_visited", words=["e = b * c"], cases="hidden"),
    value("kahn_counts_users", """
        users, stack, seen = {}, [self], {self}
        while stack:
            node = stack.pop()
            for child in node._children:
                users[child] = users.get(child, 0) + 1
                if child not in seen:
                    seen.add(child)
                    stack.append(child)
        self.grad = 1.0
        ready = [self]
        while ready:
            node = ready.pop()
            node._backward()
            for child in node._children:
                users[child] -= 1
                if users[child] == 0:
                    ready.append(child)
    """),
    value("sorted_by_height", """
        nodes, stack = set(), [self]
        while stack:
            node = stack.pop()
            if node not in nodes:
                nodes.add(node)
                stack.extend(node._children)

        def height(node):
            return 1 + max((height(child) for child in node._children), default=0)

        self.grad = 1
        for node in sorted(nodes, key=height, reverse=True):
            node._backward()
    """),
    value("explicit_sums", add="""
        self.grad = self.grad + 1.0 * out.grad
        other.grad = other.grad + 1.0 * out.grad
    """, mul="""
        self.grad = self.grad + out.grad * other.data
        other.grad = other.grad + out.grad * self.data
    """, backward="""
        order = []

        def visit(node):
            if node not in order:
                for child in node._children:
                    visit(child)
                order.append(node)

        visit(self)
        self.grad += 1.0
        for node in order[::-1]:
            node._backward()
    """),
    value("assigns_everywhere", add="""
        self.grad = out.grad
        other.grad = out.grad
    """, mul="""
        self.grad = other.data * out.grad
        other.grad = self.data * out.grad
    """, mistake="overwrote_grad", words=["a = Value(", "b = a + a", "`a.grad` is 1", "used 2 times", "passes back: 2.",
                                          "`_backward` of `+`", "(`+=`)"]),
    value("assigns_in_mul", mul="""
        self.grad = other.data * out.grad
        other.grad = self.data * out.grad
    """, mistake="overwrote_grad", words=["b = a * a", "used 2 times", "`_backward` of `*`", "(`+=`)"]),
    value("assigns_the_other_input", add="""
        self.grad += out.grad
        other.grad = out.grad
    """, mul="""
        self.grad += other.data * out.grad
        other.grad = self.data * out.grad
    """, mistake="overwrote_grad", words=["b = a + a", "`a.grad` is 1", "`_backward` of `+`"]),
    value("own_value_in_mul", mul="""
        self.grad += self.data * out.grad
        other.grad += other.data * out.grad
    """, mistake="mul_own_value", words=["c = a * b", "d(out)/d(self) = other.data"]),
    value("mul_like_add", mul="""
        self.grad += out.grad
        other.grad += out.grad
    """, mistake="wrong_local", words=["c = a * b", "`_backward` of `*`", "other.data · out.grad"]),
    value("mul_without_out_grad", mul="""
        self.grad += other.data
        other.grad += self.data
    """, mistake="no_upstream", words=["e = c * d", "`_backward` of `*`", "`out.grad`"]),
    value("add_without_out_grad", add="""
        self.grad += 1.0
        other.grad += 1.0
    """, mistake="no_upstream", words=["d = c + b", "`_backward` of `+`", "`out.grad`"]),
    value("no_seed", """
        order, seen = [], set()

        def visit(node):
            if node not in seen:
                seen.add(node)
                for child in node._children:
                    visit(child)
                order.append(node)

        visit(self)
        for node in reversed(order):
            node._backward()
    """, mistake="no_seed", words=["every gradient is 0", "`self.grad = 1.0`"]),
    value("seed_after_the_loop", """
        order, seen = [], set()

        def visit(node):
            if node not in seen:
                seen.add(node)
                for child in node._children:
                    visit(child)
                order.append(node)

        visit(self)
        for node in reversed(order):
            node._backward()
        self.grad = 1.0
    """, mistake="late_seed", words=["only the output has a gradient", "not after"]),
    value("seed_only", """
        self.grad = 1.0
    """, mistake="not_visited", words=["never called a node's `_backward()`"]),
    value("only_the_output", """
        self.grad = 1.0
        self._backward()
    """, mistake="not_visited", words=["e = c * d", "`d` never passed its gradient on"]),
    value("forgets_reversed", """
        order, seen = [], set()

        def visit(node):
            if node not in seen:
                seen.add(node)
                for child in node._children:
                    visit(child)
                order.append(node)

        visit(self)
        self.grad = 1.0
        for node in order:
            node._backward()
    """, mistake="topological_order", words=["`c._backward()` ran before `d._backward()`", "`d = c + b` uses `c`"]),
    value("depth_first_preorder", """
        seen = set()

        def visit(node):
            if node not in seen:
                seen.add(node)
                node._backward()
                for child in node._children:
                    visit(child)

        self.grad = 1.0
        visit(self)
    """, mistake="topological_order", words=["`c._backward()` ran before `d._backward()`", "walk that list backwards"]),
    value("breadth_first", """
        self.grad = 1.0
        queue, seen = [self], {self}
        while queue:
            node = queue.pop(0)
            node._backward()
            for child in node._children:
                if child not in seen:
                    seen.add(child)
                    queue.append(child)
    """, mistake="topological_order", words=["`c._backward()` ran before `d._backward()`"]),
    value("recursion_on_every_path", """
        def visit(node):
            node._backward()
            for child in node._children:
                visit(child)

        self.grad = 1.0
        visit(self)
    """, mistake="visited_twice", words=["`c._backward()` ran 2 times", "once per path"]),
    value("preorder_other_input_first", """
        seen = set()

        def visit(node):
            if node not in seen:
                seen.add(node)
                node._backward()
                for child in reversed(node._children):
                    visit(child)

        self.grad = 1.0
        visit(self)
    """, mistake="topological_order", words=["f = e + c", "`c._backward()` ran before"], cases="hidden"),
    value("not_written_yet", add="""
        # YOUR CODE HERE
        raise NotImplementedError()
    """, mul="""
        # YOUR CODE HERE
        raise NotImplementedError()
    """, backward="""
        # YOUR CODE HERE
        raise NotImplementedError()
    """, mistake="not_implemented", words=["class `Value` is not finished", "in `backward()`"]),
    value("typo_in_mul", mul="""
        self.grad += other.data * out.grad
        other.grad += self.value * out.grad
    """, mistake="crashed", words=["AttributeError", "line 26", "self.value"]),
    ("a_function_not_a_class", """
        def Value(data):
            return data
    """, "not_callable", ["is not a class"]),
]
