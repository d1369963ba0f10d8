{#-
  starter_cast(expression, type_name): the one cast every Silver model uses,
  the shipped canonical models and the models the Silver scaffolder generates.

  expression  a SQL expression, usually a Bronze column name, e.g. 'created_at'
  type_name   one of the six mapping-contract casts:
              string, integer, numeric, date, timestamp, boolean

  Dispatched in dbt's adapter.dispatch style, so each warehouse has its own
  implementation and a project can override one in its own macros:
    bigquery__   BigQuery (the warehouse of the BigQuery edition)
    snowflake__  Snowflake (the warehouse of the Snowflake edition)
    duckdb__     DuckDB, what `sealkit edition check --fixtures` executes
    default__    any other adapter: refused at compile time, never guessed

  Casts are strict (a value that does not convert fails the build) on purpose:
  a Silver table never holds a silently nulled value. The warehouse behaviour
  of timestamp, date and numeric casts (time zones, precision) is not verified
  offline; review it against your warehouse before relying on it.

  Keep this file inside the Jinja subset that both dbt and sealkit's offline
  check render: no `return()`, no `do`, no namespace(), no Python methods.
-#}
{% macro starter_cast(expression, type_name) -%}
  {{ adapter.dispatch('starter_cast')(expression, type_name) }}
{%- endmacro %}

{% macro default__starter_cast(expression, type_name) -%}
  {{ exceptions.raise_compiler_error('starter_cast has no implementation for this adapter') }}
{%- endmacro %}

{% macro bigquery__starter_cast(expression, type_name) -%}
  {%- set types = {
      'string': 'string',
      'integer': 'int64',
      'numeric': 'numeric',
      'date': 'date',
      'timestamp': 'timestamp',
      'boolean': 'bool'
  } -%}
  {%- if type_name not in types -%}
    {{ exceptions.raise_compiler_error('starter_cast: unsupported type name') }}
  {%- endif -%}
  cast({{ expression }} as {{ types[type_name] }})
{%- endmacro %}

{% macro snowflake__starter_cast(expression, type_name) -%}
  {%- set types = {
      'string': 'varchar',
      'integer': 'number(38, 0)',
      'numeric': 'number(38, 9)',
      'date': 'date',
      'timestamp': 'timestamp_ntz',
      'boolean': 'boolean'
  } -%}
  {%- if type_name not in types -%}
    {{ exceptions.raise_compiler_error('starter_cast: unsupported type name') }}
  {%- endif -%}
  cast({{ expression }} as {{ types[type_name] }})
{%- endmacro %}

{% macro duckdb__starter_cast(expression, type_name) -%}
  {%- set types = {
      'string': 'varchar',
      'integer': 'bigint',
      'numeric': 'decimal(38, 9)',
      'date': 'date',
      'timestamp': 'timestamp',
      'boolean': 'boolean'
  } -%}
  {%- if type_name not in types -%}
    {{ exceptions.raise_compiler_error('starter_cast: unsupported type name') }}
  {%- endif -%}
  cast({{ expression }} as {{ types[type_name] }})
{%- endmacro %}
