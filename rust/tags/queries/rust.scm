; codesift's Rust definitions, placed before tree-sitter-rust's TAGS_QUERY: that query calls
; structs, enums, unions and type aliases all "class" and traits "interface", and misses
; constants, statics, struct fields, associated types and the methods a trait declares
; without a body.

(struct_item name: (type_identifier) @name) @definition.struct
(enum_item name: (type_identifier) @name) @definition.enum
(union_item name: (type_identifier) @name) @definition.union
(type_item name: (type_identifier) @name) @definition.type
(trait_item name: (type_identifier) @name) @definition.trait
(associated_type name: (type_identifier) @name) @definition.type
(const_item name: (identifier) @name) @definition.constant
(static_item name: (identifier) @name) @definition.variable
(declaration_list (function_signature_item name: (identifier) @name) @definition.method)
(function_signature_item name: (identifier) @name) @definition.function
(field_declaration name: (field_identifier) @name) @definition.field
