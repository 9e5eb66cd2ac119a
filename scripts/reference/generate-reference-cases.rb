#!/usr/bin/env ruby
# Renders each case of an input file with the Ruby reference (Debian's ruby-liquid, Shopify
# Liquid 5.4; `apt-get install -y ruby ruby-liquid`) and writes a Golden Liquid-format suite
# with the reference's output, so the Swift engine can be checked against it:
#
#   ruby scripts/reference/generate-reference-cases.rb scripts/reference/filter-edges.input.json \
#     > Tests/LiquidTests/Fixtures/reference-filter-edges.json
#
# With LIQUID_LIB set to the `lib/` of a Shopify/liquid checkout (tag v5.13.0: `git archive
# v5.13.0 lib | tar -x`), that version renders instead:
#
#   LIQUID_LIB=/path/to/liquid-5.13/lib ruby scripts/reference/generate-reference-cases.rb \
#     scripts/reference/semantics-513.input.json > Tests/LiquidTests/Fixtures/reference-513-semantics.json
#
# Input: {"tests": [{"name", "template", "data"?, "templates"?, "mode"?}]}: `mode` is lax (the
# default), strict or strict2, written to the output's `tags`. Errors become "invalid": true.
# Time zone: UTC. `blank` follows Rails' `blank?` as the dashboard's Rails host does.
require 'json'
if (lib = ENV['LIQUID_LIB'])
  require 'strscan'
  # Ruby 3.1's StringScanner lacks the byte methods Liquid 5.13 uses.
  class StringScanner
    def peek_byte; (b = peek(1)).empty? ? nil : b.unpack1('C'); end unless method_defined?(:peek_byte)
    def scan_byte; (b = get_byte) ? b.unpack1('C') : nil; end unless method_defined?(:scan_byte)
  end
  $LOAD_PATH.unshift(lib)
end
require 'liquid'
ENV['TZ'] = 'UTC'

# Partials from a case's `templates`, by name as `render`/`include` ask for them.
class CaseFileSystem
  def initialize(templates); @templates = templates; end
  def read_template_file(name)
    @templates.fetch(name) { raise Liquid::FileSystemError, "No such template '#{name}'" }
  end
end

require_relative 'rails_blank'

input = JSON.parse(File.read(ARGV.fetch(0)))
tests = input.fetch('tests').map do |t|
  out = { 'name' => t['name'], 'template' => t['template'] }
  out['data'] = t['data'] if t.key?('data')
  out['templates'] = t['templates'] if t.key?('templates')
  mode = (t['mode'] || 'lax').to_sym
  begin
    Liquid::Template.file_system = CaseFileSystem.new(t['templates'] || {})
    template = Liquid::Template.parse(t['template'], error_mode: mode, line_numbers: true)
    # (A copy: `increment` writes its counter into the data it is given.)
    out['result'] = template.render!(Marshal.load(Marshal.dump(t['data'] || {})), { strict_variables: false })
  rescue Liquid::Error, ::ArgumentError, ::ZeroDivisionError, ::TypeError, ::NoMethodError => e
    out['invalid'] = true
    out['reference_error'] = e.message
  end
  out['tags'] = [mode == :lax ? nil : mode.to_s, "reference #{Liquid::VERSION}"].compact
  out
end
puts JSON.pretty_generate({ 'description' => "Cases rendered by Shopify Liquid #{Liquid::VERSION} (Ruby #{RUBY_VERSION})", 'tests' => tests })
