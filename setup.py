"""Packaging for Actae; everything static is in pyproject.toml.

The SQL ships inside the wheel without a second copy in the repository: the package
``actae._sql`` is mapped onto the repository root, and only ``migrations/*.sql``,
``sql/*.sql`` and ``sql/citus/*.sql`` / ``*.psql`` (the scripts docs/SCALING.md runs by hand)
are taken from it (as package data, never its Python files). The top-level
folders stay the one source of truth; ``actae.migrate`` reads them with ``importlib.resources``.
"""

from setuptools import find_packages, setup
from setuptools.command.build_py import build_py

SQL_PACKAGE = "actae._sql"


class BuildPy(build_py):
    """build_py that takes no modules from the repository root (this file)."""

    def find_package_modules(self, package: str, package_dir: str) -> list[tuple[str, str, str]]:
        if package == SQL_PACKAGE:
            return []
        return super().find_package_modules(package, package_dir)


setup(
    packages=[*find_packages("python", include=["actae", "actae.*"]), SQL_PACKAGE],
    package_dir={"": "python", SQL_PACKAGE: "."},
    package_data={
        "actae": ["py.typed", "console/templates/*.html"],
        SQL_PACKAGE: ["migrations/*.sql", "sql/*.sql", "sql/citus/*.sql",
                      "sql/citus/*.psql"],
    },
    cmdclass={"build_py": BuildPy},
)
