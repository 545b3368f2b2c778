"""The model solutions ``exercises.<name>.solution()`` shows: to a student working on their own
(no course's ``variants.json`` beside the notebook), after the exercise's last hint, in the same
kernel.

Why here, in the lessons package, and not elsewhere:

* the source notebook holds every model solution, but the student's copy is the released one,
  from which ``make release`` removes them, so the kernel cannot read them there;
* a solution is code, the same in every language, so it is not in the locale files (one copy,
  not six); the sentence that introduces it is (``[lessons.solution]`` in the exercise's
  ``autograder/exercises/<name>/locale/<lang>.toml``);
* the package is on the student's machine in a course too, so only an exercise whose algorithm
  the package already ships may have one here: exercise 2(d)'s judge recomputes every gradient
  with the same depth-first order (``autograder.exercises.value_backward.judge.topological``).
  ``solution()`` refuses in a course all the same: there the hints are the last word.

tests/test_solutions.py holds each text equal to the source notebook's answer cell with the
solution markers removed, and passing every case (visible and hidden) of its check.
"""

# exercise name → the answer cell as the model solution fills it in
SOLUTIONS = {
    "value_backward": '''\
class Value:
    def __init__(self, data, children=()):
        self.data = data
        self.grad = 0.0
        self._children = children
        self._backward = lambda: None

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad})"

    def __add__(self, other):
        out = Value(self.data + other.data, (self, other))

        def _backward():
            self.grad += out.grad
            other.grad += out.grad

        out._backward = _backward
        return out

    def __mul__(self, other):
        out = Value(self.data * other.data, (self, other))

        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad

        out._backward = _backward
        return out

    def backward(self):
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
''',
}
