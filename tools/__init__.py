"""Scripts that work on the repository (the docs' reference and pictures, studies); not part of
the package."""
