; codesift's Go definitions, placed before tree-sitter-go's TAGS_QUERY: that query calls every
; type "type", and misses constants, package-level variables, struct fields and the methods
; an interface declares; and its type definitions start at their name (`Point struct`), not
; at `type`.

(type_declaration (type_spec name: (type_identifier) @name type: (struct_type))) @definition.struct
(type_declaration (type_spec name: (type_identifier) @name type: (interface_type))) @definition.interface
(type_declaration (type_spec name: (type_identifier) @name)) @definition.type
(type_declaration (type_alias name: (type_identifier) @name)) @definition.type
(const_spec name: (identifier) @name) @definition.constant
(source_file (var_declaration (var_spec name: (identifier) @name) @definition.variable))
(source_file (var_declaration (var_spec_list (var_spec name: (identifier) @name) @definition.variable)))
(field_declaration name: (field_identifier) @name) @definition.field
(method_elem name: (field_identifier) @name) @definition.method
