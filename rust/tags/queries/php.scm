; codesift's PHP definitions, placed before tree-sitter-php's TAGS_QUERY: that query calls
; methods "function", traits "interface" and namespaces "module", and misses enums and
; constants.

(method_declaration name: (name) @name) @definition.method
(trait_declaration name: (name) @name) @definition.trait
(enum_declaration name: (name) @name) @definition.enum
(namespace_definition name: (namespace_name) @name) @definition.namespace
(const_element (name) @name) @definition.constant
