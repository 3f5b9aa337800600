; A file-scope variable in its parent node, which `c_query` in mod.rs names (once each).
(PARENT
  (declaration
    declarator: [
      (identifier) @name
      (init_declarator declarator: (identifier) @name)
      (init_declarator declarator: (pointer_declarator declarator: (identifier) @name))
      (init_declarator declarator: (array_declarator declarator: (identifier) @name))
      (array_declarator declarator: (identifier) @name)
      (pointer_declarator declarator: (identifier) @name)
    ]) @definition.variable)
