#!/usr/bin/env ruby
# Renders each case of an input file with the Ruby reference (Debian's ruby-liquid, Shopify
# Liquid 5.4; `apt-get install -y ruby ruby-liquid`) and writes a Golden Liquid-format suite
# with the reference's output, so the Swift engine can be checked against it:
#
#   ruby scripts/reference/generate-reference-cases.rb scripts/reference/filter-edges.input.json \
#     > Tests/LiquidTests/Fixtures/reference-filter-edges.json
#
# Input: {"tests": [{"name", "template", "data"?}]}. Errors become "invalid": true.
# Time zone: UTC. `blank` follows Rails' `blank?` as the dashboard's Rails host does.
require 'json'
require 'liquid'
ENV['TZ'] = 'UTC'

require_relative 'rails_blank'

input = JSON.parse(File.read(ARGV.fetch(0)))
tests = input.fetch('tests').map do |t|
  out = { 'name' => t['name'], 'template' => t['template'] }
  out['data'] = t['data'] if t.key?('data')
  begin
    template = Liquid::Template.parse(t['template'], error_mode: :lax, line_numbers: true)
    out['result'] = template.render!(t['data'] || {}, { strict_variables: false })
  rescue Liquid::Error, ::ArgumentError, ::ZeroDivisionError, ::TypeError, ::NoMethodError => e
    out['invalid'] = true
    out['reference_error'] = e.message
  end
  out['tags'] = ['reference 5.4']
  out
end
puts JSON.pretty_generate({ 'description' => "Cases rendered by Shopify Liquid #{Liquid::VERSION} (Ruby #{RUBY_VERSION})", 'tests' => tests })
