; codesift's C++ definitions, added to its C ones (c.scm, which the C++ grammar shares), all
; placed before tree-sitter-cpp's TAGS_QUERY. That query misses namespaces, `using` aliases,
; methods defined out of their class (`void Foo::bar() { ... }`, `Foo::~Foo()`) or returning a
; pointer or a reference, and tags class declarations without a body (`class Foo;`), which
; are ignored here.

(class_specifier name: (type_identifier) @ignore !body)

(class_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.class
(namespace_definition name: (namespace_identifier) @name) @definition.namespace
(alias_declaration name: (type_identifier) @name) @definition.type
(concept_definition name: (identifier) @name) @definition.type

(function_definition
  declarator: (function_declarator
    declarator: [
      (field_identifier) @name
      (destructor_name) @name
      (operator_name) @name
      (qualified_identifier name: [(identifier) (destructor_name) (operator_name)] @name)
      (qualified_identifier
        name: (qualified_identifier name: [(identifier) (destructor_name) (operator_name)] @name))
    ])) @definition.method
(function_definition
  declarator: [
    (pointer_declarator
      declarator: (function_declarator
        declarator: [
          (field_identifier) @name
          (qualified_identifier name: [(identifier) (operator_name)] @name)
        ]))
    (reference_declarator
      (function_declarator
        declarator: [
          (field_identifier) @name
          (qualified_identifier name: [(identifier) (operator_name)] @name)
        ]))
  ]) @definition.method
(function_definition
  declarator: (reference_declarator
    (function_declarator declarator: (identifier) @name))) @definition.function

; Member functions declared in their class, defined elsewhere.
(field_declaration
  declarator: (function_declarator
    declarator: [(field_identifier) (destructor_name) (operator_name)] @name)) @definition.prototype
