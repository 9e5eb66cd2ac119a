#!/usr/bin/env ruby
# The Ruby side of a page workload (Benchmarks/workloads/gen_workloads.py):
#   ruby [--yjit] render_page.rb SPEC.json ITERATIONS [liquid-c]
# Parses the spec's template once, renders it ITERATIONS times (after one untimed render) and
# prints `page_seconds=S pages=N output_bytes=B`. With `liquid-c`, Shopify's C extension
# (Debian's ruby-liquid-c) is loaded first.
require 'json'
require 'liquid'
require 'liquid/c' if ARGV[2] == 'liquid-c'

require_relative '../../scripts/reference/rails_blank'

# Debian's Liquid is 5.4, which has no `squish`: 5.13's, word for word, so that the filter
# table compares the same work on every engine.
unless Liquid::StandardFilters.method_defined?(:squish)
  module Squish513
    def squish(input)
      return if input.nil?
      input.to_s.strip.gsub(/\s+/, ' ')
    end
  end
  Liquid::Template.register_filter(Squish513)
end

spec = JSON.parse(File.read(ARGV.fetch(0)))
iterations = Integer(ARGV.fetch(1))
template = Liquid::Template.parse(spec.fetch('template'))
data = spec['data'] || {}
out = template.render!(data)
t = Process.clock_gettime(Process::CLOCK_MONOTONIC)
iterations.times { out = template.render!(data) }
s = Process.clock_gettime(Process::CLOCK_MONOTONIC) - t
puts "page_seconds=#{s.round(6)} pages=#{iterations} output_bytes=#{out.bytesize}"
