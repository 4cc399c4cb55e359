# registry/ build rules.
