# Rails' `blank?` semantics, as the Braze dashboard's Rails host has them ("  ", "", nil,
# false, [] and {} are blank), for the Ruby reference scripts.
class Object; def blank?; respond_to?(:empty?) ? !!empty? : !self; end; end
class String; def blank?; strip.empty?; end; end
class NilClass; def blank?; true; end; end
class FalseClass; def blank?; true; end; end
class TrueClass; def blank?; false; end; end
class Numeric; def blank?; false; end; end
